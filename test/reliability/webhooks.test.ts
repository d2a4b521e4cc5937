// Webhooks across real nodes on PostgreSQL. A node is killed (SIGKILL) while it is sending: the
// events it held are delivered by another node once its hold runs out, each with its own
// webhook-id. Two nodes delivering one outbox together never send one message twice at once.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { freshPostgresDatabase, sampleAssessment } from '../harness.js';
import { admin, figure, startNode, tenant, type Node } from './support/server.js';

interface Arrival {
  id: string;
  start: number;
  end?: number;
  body: string;
  headers: Record<string, string>;
}

async function receiver(mode: { hang: boolean }) {
  const arrivals: Arrival[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (c) => (body += c));
    request.on('end', () => {
      const arrival: Arrival = { id: String(request.headers['webhook-id']), start: Date.now(), body, headers: request.headers as Record<string, string> };
      arrivals.push(arrival);
      if (mode.hang) return;
      // A little work, so that deliveries overlap in time when two nodes send at once.
      setTimeout(() => {
        arrival.end = Date.now();
        response.writeHead(204).end();
      }, 20);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`,
    arrivals,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const until = async (what: string, check: () => boolean, ms: number) => {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

describe('webhooks on several nodes', () => {
  let database: { url: string; drop(): Promise<void> };
  const nodes: Node[] = [];
  const env = { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_TIMEOUT_MS: '2000' };

  before(async () => {
    database = await freshPostgresDatabase();
  });
  after(async () => {
    for (const node of nodes) await node.stop('SIGKILL');
    await database.drop();
  });

  const invite = (node: Node, key: string, instance: string, email: string) =>
    fetch(`${node.url}/v1/invite`, {
      method: 'POST',
      headers: { 'x-api-key': key, instance, 'content-type': 'application/json' },
      body: JSON.stringify({ email, firstName: 'Hook', lastName: 'Test', assessments: ['alpha'] }),
    });

  it('delivers through another node what a killed node was sending', async () => {
    const mode = { hang: true };
    const hook = await receiver(mode);
    try {
      const a = await startNode(database.url, env);
      nodes.push(a);
      const t = await tenant(a, 'hooks-kill', (id) => sampleAssessment(id));
      const made = await admin(a, 'POST', `/instances/${t.instance}/webhooks`, { url: hook.url, events: ['invitation.created'] });
      const secret = (made.json as { secret: string }).secret;
      for (let i = 0; i < 5; i++) assert.equal((await invite(a, t.key, t.instance, `kill-${i}@example.com`)).status, 200);
      await until('node A to send all five', () => new Set(hook.arrivals.map((r) => r.id)).size === 5, 20_000);
      const held = [...new Set(hook.arrivals.map((r) => r.id))];
      a.kill('SIGKILL');
      await a.exited;
      mode.hang = false;
      const killedAt = Date.now();
      const b = await startNode(database.url, env);
      nodes.push(b);
      await until('node B to deliver them', () => held.every((id) => hook.arrivals.some((r) => r.id === id && r.end !== undefined)), 30_000);
      figure(`webhooks: node killed holding 5 deliveries; another node delivered all 5 within ${Date.now() - killedAt} ms (hold: 2 x WEBHOOK_TIMEOUT_MS = 4000 ms)`);
      const webhook = new Webhook(secret);
      for (const arrival of hook.arrivals.filter((r) => r.end !== undefined))
        assert.equal((webhook.verify(arrival.body, arrival.headers) as { type: string }).type, 'invitation.created');
      await b.stop('SIGTERM');
      nodes.splice(0);
    } finally {
      await hook.close();
    }
  });

  it('two nodes sending one outbox never send one message twice at once, and lose none', async () => {
    const hook = await receiver({ hang: false });
    try {
      const [b, c] = [await startNode(database.url, env), await startNode(database.url, env)];
      nodes.push(b, c);
      const t = await tenant(b, 'hooks-two', (id) => sampleAssessment(id));
      await admin(b, 'POST', `/instances/${t.instance}/webhooks`, { url: hook.url });
      const count = 60;
      const answers = await Promise.all(Array.from({ length: count }, (_, i) => invite(i % 2 ? b : c, t.key, t.instance, `two-${i}@example.com`)));
      assert.ok(answers.every((r) => r.status === 200));
      await until('every event', () => new Set(hook.arrivals.map((r) => r.id)).size >= count && hook.arrivals.every((r) => r.end !== undefined), 30_000);
      const byId = new Map<string, Arrival[]>();
      for (const arrival of hook.arrivals) byId.set(arrival.id, [...(byId.get(arrival.id) ?? []), arrival]);
      const overlapping = [...byId.values()].filter((list) => list.some((x, i) => list.some((y, j) => i !== j && x.start < (y.end ?? Infinity) && y.start < (x.end ?? Infinity))));
      const repeats = [...byId.values()].filter((list) => list.length > 1).length;
      figure(`webhooks: two nodes, ${count} invites: ${byId.size} messages delivered, ${repeats} sent more than once, ${overlapping.length} sent twice at the same time`);
      assert.equal(byId.size, count, 'one invitation.created per invite, none lost');
      assert.equal(overlapping.length, 0, 'no message in flight twice at once');
    } finally {
      await hook.close();
    }
  });
});
