// Soak: one real node under SOAK_SECONDS (default 120) of mixed load from 8 loops: invites of new
// e-mails and re-invites, score reads by candidate and the full export, the assessment list, and
// whole portal flows from the link to the submission. No 5xx and no failed request are allowed;
// the node's resident memory is sampled every 5 s and may not grow by more than 150 MB between the
// first and the last third; at the end every invite answered 200 is checked against the database.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { sampleAssessment } from '../harness.js';
import { figure, freshPostgresDatabase, rssMb, startNode, tenant, type Node } from './support/server.js';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 120);
const RSS_LIMIT_MB = 150;
const SAMPLE_MS = 5000;

interface Invited {
  email: string;
  candidateId: string;
  assessments: string[];
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);

describe('a soak of mixed load on a real node', () => {
  let database: { url: string; drop(): Promise<void> };
  let node: Node;
  let t: { instance: string; key: string; assessments: string[] };

  before(async () => {
    database = await freshPostgresDatabase();
    node = await startNode(database.url);
    t = await tenant(node, 'soak', (id) => sampleAssessment(id, { typing: true }));
  });
  after(async () => {
    await node?.stop();
    await database?.drop();
  });

  it(`serves ${SECONDS} s of mixed load without 5xx, failures or runaway memory`, { timeout: (SECONDS + 300) * 1000 }, async () => {
    const latencies: number[] = [];
    const statuses = new Map<string, number>();
    const failures: string[] = [];
    const newInvites: Invited[] = [];
    const known: Invited[] = [];
    let serial = 0;
    let flows = 0;
    const deadline = Date.now() + SECONDS * 1000;
    const api = { 'x-api-key': t.key, instance: t.instance };

    /** One request, timed and counted; a 5xx or a network failure is recorded. */
    async function call(label: string, path: string, init: RequestInit = {}): Promise<{ status: number; text: string; headers: Headers }> {
      const began = performance.now();
      try {
        const response = await fetch(node.url + path, { redirect: 'manual', signal: AbortSignal.timeout(30_000), ...init });
        const text = await response.text();
        latencies.push(performance.now() - began);
        const key = `${label} ${response.status}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        if (response.status >= 500) failures.push(`${label}: ${response.status} ${text.slice(0, 200)}`);
        return { status: response.status, text, headers: response.headers };
      } catch (error) {
        latencies.push(performance.now() - began);
        failures.push(`${label}: ${(error as Error).message} ${String((error as { cause?: unknown }).cause ?? '')}`);
        return { status: 0, text: '', headers: new Headers() };
      }
    }

    function expect(label: string, got: number, wanted: number, text: string) {
      if (got !== 0 && got !== wanted) failures.push(`${label}: ${got} instead of ${wanted}: ${text.slice(0, 200)}`);
    }

    async function invite(email: string, assessments: string[]) {
      const response = await call('invite', '/v1/invite?sendInvite=false', {
        method: 'POST',
        headers: { ...api, 'content-type': 'application/json' },
        body: JSON.stringify({ email, firstName: 'Soak', lastName: 'Tester', assessments }),
      });
      expect('invite', response.status, 200, response.text);
      if (response.status !== 200) return undefined;
      return JSON.parse(response.text) as { candidateId: string; link: string; assessmentId?: string }[];
    }

    const loops: Record<string, () => Promise<void>> = {
      async newInvites() {
        const email = `new${serial++}@soak.example`;
        const assessments = serial % 3 === 0 ? ['alpha'] : ['alpha', 'beta'];
        const answer = await invite(email, assessments);
        if (answer) {
          const record = { email, candidateId: answer[0]!.candidateId, assessments };
          newInvites.push(record);
          known.push(record);
        }
      },
      async reInvites() {
        const before = known[Math.floor(Math.random() * known.length)];
        if (!before) return void (await sleep(50));
        const email = Math.random() < 0.5 ? before.email.toUpperCase() : before.email;
        const answer = await invite(email, ['alpha', 'beta']);
        if (answer && answer[0]!.candidateId !== before.candidateId) failures.push(`re-invite of ${email} made candidate ${answer[0]!.candidateId}, not ${before.candidateId}`);
      },
      async scoreByCandidate() {
        const ids = Array.from({ length: 5 }, () => known[Math.floor(Math.random() * known.length)]?.candidateId).filter(Boolean);
        if (ids.length === 0) return void (await sleep(50));
        const response = await call('score by candidate', `/v1/score?candidateIds=${ids.join(',')}`, { headers: api });
        expect('score by candidate', response.status, 200, response.text);
      },
      async fullExport() {
        const response = await call('score export', '/v1/score', { headers: api });
        expect('score export', response.status, 200, response.text);
        if (response.status === 200) JSON.parse(response.text);
        await sleep(200);
      },
      async assessments() {
        const response = await call('assessment list', '/v1/assessment', { headers: api });
        expect('assessment list', response.status, 200, response.text);
      },
      async portal() {
        const email = `flow${serial++}@soak.example`;
        const answer = await invite(email, ['alpha']);
        if (!answer) return;
        const record = { email, candidateId: answer[0]!.candidateId, assessments: ['alpha'] };
        newInvites.push(record);
        known.push(record);
        const token = answer[0]!.link.split('sessionToken=')[1]!;
        const opened = await call('portal session', '/portal/api/session', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
        expect('portal session', opened.status, 200, opened.text);
        const cookie = opened.headers.getSetCookie()[0]?.split(';')[0];
        if (!cookie) return;
        const page = await call('portal page', '/portal/a/alpha', { headers: { cookie } });
        const csrf = /name="csrf-token" content="([^"]+)"/.exec(page.text)?.[1];
        if (!csrf) return void failures.push(`portal page without a CSRF token: ${page.status}`);
        const headers = { cookie, 'x-csrf-token': csrf };
        const json = { ...headers, 'content-type': 'application/json' };
        const started = await call('portal start', '/portal/a/alpha/start', { method: 'POST', headers });
        expect('portal start', started.status, 303, started.text);
        for (const [q, value] of [
          ['q1', 1],
          ['q2', [0, 2]],
          ['q3', '1250'],
          ['q4', 'I listened and fixed it.'],
        ] as const) {
          const saved = await call('portal answer', `/portal/api/a/alpha/answers/${q}`, { method: 'PUT', headers: json, body: JSON.stringify({ value }) });
          expect('portal answer', saved.status, 204, saved.text);
        }
        const signal = await call('portal signal', '/portal/api/a/alpha/signals', { method: 'POST', headers: json, body: JSON.stringify({ kind: 'focus-lost', detail: 'soak' }) });
        if (signal.status >= 400) failures.push(`portal signal: ${signal.status} ${signal.text.slice(0, 200)}`);
        const typingStart = await call('portal typing start', '/portal/api/a/alpha/typing/start', { method: 'POST', headers });
        expect('portal typing start', typingStart.status, 204, typingStart.text);
        await sleep(1500);
        const typed = 'The quick brown fox';
        const intervals = Array.from({ length: typed.length }, (_, i) => 90 + ((i * 37) % 80));
        const typing = await call('portal typing', '/portal/api/a/alpha/typing', { method: 'POST', headers: json, body: JSON.stringify({ typed, intervals }) });
        expect('portal typing', typing.status, 200, typing.text);
        const submitted = await call('portal submit', '/portal/a/alpha/submit', { method: 'POST', headers });
        expect('portal submit', submitted.status, 303, submitted.text);
        flows++;
      },
    };
    const plan = ['newInvites', 'newInvites', 'reInvites', 'scoreByCandidate', 'fullExport', 'assessments', 'portal', 'portal'];

    const pid = node.child.pid!;
    const rss: number[] = [rssMb(pid)];
    const sampler = setInterval(() => rss.push(rssMb(pid)), SAMPLE_MS);
    const began = Date.now();
    try {
      await Promise.all(
        plan.map(async (name) => {
          while (Date.now() < deadline) await loops[name]!();
        }),
      );
    } finally {
      clearInterval(sampler);
    }
    rss.push(rssMb(pid));
    const seconds = (Date.now() - began) / 1000;

    const sorted = [...latencies].sort((a, b) => a - b);
    const p = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
    const third = Math.max(1, Math.floor(rss.length / 3));
    const growth = mean(rss.slice(-third)) - mean(rss.slice(0, third));
    figure(
      `soak: ${latencies.length} requests in ${seconds.toFixed(0)} s, ${(latencies.length / seconds).toFixed(0)} req/s, p50 ${p(0.5).toFixed(1)} ms, p99 ${p(0.99).toFixed(1)} ms, ${flows} portal flows, ${failures.length} failures`,
    );
    figure(
      `soak: RSS start ${rss[0]!.toFixed(0)} MB, end ${rss[rss.length - 1]!.toFixed(0)} MB, max ${Math.max(...rss).toFixed(0)} MB, growth first->last third ${growth.toFixed(1)} MB (${rss.length} samples, limit ${RSS_LIMIT_MB} MB)`,
    );

    // Every invite of a new e-mail answered 200 left its candidate and one invitation per assessment.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    let rows = 0;
    const missing: string[] = [];
    try {
      const { rows: found } = await client.query<{ id: string; email: string; slugs: string[] }>(
        `SELECT c.id, lower(c.email) AS email, array_agg(a.slug ORDER BY a.slug) AS slugs
           FROM candidates c JOIN instances n ON n.id = c.instance_id AND n.name = $1
           JOIN invitations i ON i.candidate_id = c.id JOIN assessments a ON a.id = i.assessment_id
          GROUP BY c.id, c.email`,
        [t.instance],
      );
      rows = found.reduce((sum, r) => sum + r.slugs.length, 0);
      const byId = new Map(found.map((r) => [r.id, r]));
      for (const invited of newInvites) {
        const row = byId.get(invited.candidateId);
        if (!row) missing.push(`${invited.email}: no candidate ${invited.candidateId}`);
        else if (row.email !== invited.email.toLowerCase()) missing.push(`${invited.email}: candidate has ${row.email}`);
        else if (!invited.assessments.every((a) => row.slugs.includes(a)))
          missing.push(`${invited.email}: invitations ${row.slugs.join(',')}, expected ${invited.assessments.join(',')}`);
      }
      const { rows: counted } = await client.query<{ n: string }>('SELECT count(*) AS n FROM candidates c JOIN instances n ON n.id = c.instance_id AND n.name = $1', [t.instance]);
      if (Number(counted[0]!.n) !== newInvites.length) missing.push(`${counted[0]!.n} candidates in the database, ${newInvites.length} new e-mails invited`);
    } finally {
      await client.end();
    }
    figure(`soak: ${newInvites.length} new-e-mail invites checked against ${rows} invitation rows, ${missing.length} discrepancies`);

    const health = await fetch(`${node.url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(failures.slice(0, 20), [], `${failures.length} failures`);
    assert.deepEqual(missing.slice(0, 20), []);
    assert.ok(growth <= RSS_LIMIT_MB, `RSS grew by ${growth.toFixed(1)} MB`);
  });
});
