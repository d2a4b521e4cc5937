// The README's promises, through real processes: `npm start` on a fresh data directory (and on
// PostgreSQL when available), the operator CLI against it (its run() in this process, with this
// suite's environment; test/build.test.ts runs bin/ as a process), the public API over a real
// port, a restart that keeps everything, and an orderly stop on SIGTERM.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { catalogueFiles } from '../src/seed.js';
import { freePort, freshPostgresDatabase, sampleAssessment, storeKinds } from './harness.js';
import { startRelay, type Relay } from './relay.js';
import { cli } from './support/cli.js';
import { runnable } from './support/runnable.js';

const ROOT = path.resolve(import.meta.dirname, '..');

interface Running {
  child: ChildProcess;
  output: () => string;
  startedInMs: number;
}

async function start(env: Record<string, string>): Promise<Running> {
  const began = Date.now();
  const server = runnable(path.join(ROOT, 'src', 'server.ts'));
  const child = spawn(process.execPath, [...server.loader, server.file], { cwd: ROOT, env: { ...process.env, LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 60 s:\n${output}`)), 60_000);
    const check = () => {
      if (output.includes('Get an API key')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return { child, output: () => output, startedInMs: Date.now() - began };
}

async function stop(running: Running): Promise<{ code: number | null; ms: number }> {
  const began = Date.now();
  if (running.child.exitCode !== null) return { code: running.child.exitCode, ms: 0 };
  const exited = new Promise<number | null>((resolve) => running.child.on('exit', (code) => resolve(code)));
  running.child.kill('SIGTERM');
  return { code: await exited, ms: Date.now() - began };
}

const kinds = storeKinds().map((k) => k.name);

for (const kind of kinds) {
  describe(`npm start and the CLI [${kind}]`, () => {
    let dataDir: string;
    let port: number;
    let env: Record<string, string>;
    let server: Running;
    let dropDatabase = async () => {};
    const url = (p: string) => `http://127.0.0.1:${port}${p}`;

    before(async () => {
      dataDir = mkdtempSync(path.join(tmpdir(), 'ac-server-'));
      port = await freePort();
      env = { DATA_DIR: dataDir, PORT: String(port), ADMIN_TOKEN: '', DATABASE_URL: '' };
      if (kind === 'postgres') {
        // Empty: the server applies the migrations as it starts.
        const fresh = await freshPostgresDatabase({ migrated: false });
        dropDatabase = fresh.drop;
        env.DATABASE_URL = fresh.url;
        env.ADMIN_TOKEN = 'postgres-admin-token-for-tests';
      }
      server = await start(env);
    });

    after(async () => {
      if (server) await stop(server);
      await dropDatabase();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('starts, seeds demo, and prints where things are', () => {
      const out = server.output();
      assert.match(out, new RegExp(`API: +http://localhost:${port}/v1/`));
      assert.match(out, /Docs: +http:\/\/localhost:\d+\/docs/);
      assert.match(out, /Seeded: +instance "demo"/);
      assert.match(out, /npx assessment-connect key create --instance demo/);
      process.stdout.write(`# [${kind}] npm start ready in ${server.startedInMs} ms\n`);
    });

    if (kind === 'pglite') {
      it('writes the generated admin token with mode 0600', () => {
        const mode = statSync(path.join(dataDir, 'admin-token')).mode & 0o777;
        assert.equal(mode.toString(8), '600');
      });
    }

    it('walks through the README: key from the CLI, list, invite, scores; then revoke', async () => {
      const created = await cli(['key', 'create', '--instance', 'demo', '--label', 'walk-through', '--json'], env);
      assert.equal(created.code, 0, created.stderr);
      const key = JSON.parse(created.stdout);
      assert.match(key.key, /^ack_/);
      assert.deepEqual(key.instances, ['demo']);

      const assessments = await (await fetch(url('/v1/assessment'), { headers: { 'X-API-Key': key.key } })).json();
      const ids = assessments.map((a: { id: string }) => a.id);
      assert.deepEqual(
        ids,
        catalogueFiles().map((file) => path.basename(file, '.yaml')),
        'the demo catalogue: the whole library',
      );
      assert.ok(['customer-support', 'data-entry'].every((id) => ids.includes(id)));

      const invite = await fetch(url('/v1/invite?sendInvite=true'), {
        method: 'POST',
        headers: { 'X-API-Key': key.key, instance: 'demo', 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: 'jane.doe@example.com', firstName: 'Jane', lastName: 'Doe', assessments: ['customer-support', 'data-entry'] }),
      });
      assert.equal(invite.status, 200);
      const [result] = await invite.json();
      assert.equal(result.invitationStatus, 'SENT');
      assert.ok(result.link.startsWith(`http://localhost:${port}/portal/#?sessionToken=`));

      const scores = await (await fetch(url(`/v1/score?candidateIds=${result.candidateId}`), { headers: { 'X-API-Key': key.key } })).json();
      assert.equal(scores.length, 2);
      assert.ok(scores.every((s: { assessmentStatus: string; scoreStatus: string }) => s.assessmentStatus === 'INVITED' && s.scoreStatus === 'PENDING'));

      const listed = await cli(['key', 'list', '--instance', 'demo'], env);
      assert.equal(listed.code, 0);
      assert.match(listed.stdout, new RegExp(key.id));
      assert.ok(!listed.stdout.includes(key.key), 'the key is never listed');

      const revoked = await cli(['key', 'revoke', key.id], env);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.equal((await fetch(url('/v1/assessment'), { headers: { 'X-API-Key': key.key } })).status, 401);
    });

    it('manages instances and assessments from the CLI, with clear errors', async () => {
      const made = await cli(['instance', 'create', 'acme', '--portal-url', 'https://tests.acme.example', '--json'], env);
      assert.equal(made.code, 0, made.stderr);
      assert.equal(JSON.parse(made.stdout).portalUrl, 'https://tests.acme.example');
      assert.match((await cli(['instance', 'list'], env)).stdout, /acme/);
      const duplicate = await cli(['instance', 'create', 'acme'], env);
      assert.equal(duplicate.code, 1);
      assert.match(duplicate.stderr, /409 .*exists already/);

      const file = path.join(dataDir, 'custom.yaml');
      writeFileSync(file, sampleAssessment('custom', { name: 'Custom' }));
      const imported = await cli(['assessment', 'import', file, '--instance', 'acme'], env);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, /Published custom \(version 1\) in acme/);
      const listed = await cli(['assessment', 'list', '--instance', 'acme', '--json'], env);
      assert.deepEqual(
        JSON.parse(listed.stdout).map((a: { id: string }) => a.id),
        ['custom'],
      );

      writeFileSync(file, sampleAssessment('custom').replace('passScore: 70', 'passScore: high'));
      const broken = await cli(['assessment', 'import', file, '--instance', 'acme'], env);
      assert.equal(broken.code, 1);
      assert.match(broken.stderr, /line 5: passScore: must be number/);

      const reviews = await cli(['review', 'list', '--instance', 'acme'], env);
      assert.equal(reviews.code, 0, reviews.stderr);
      assert.match(reviews.stdout, /nothing awaits review/);
      const badScore = await cli(['review', 'score', 'a', 'b', '150', '--instance', 'acme'], env);
      assert.equal(badScore.code, 2);

      const keyForTwo = await cli(['key', 'create', '--instance', 'demo,acme', '--rate-limit', '120', '--json'], env);
      assert.deepEqual(JSON.parse(keyForTwo.stdout).instances, ['acme', 'demo']);
      assert.equal(JSON.parse(keyForTwo.stdout).rateLimit, 120);
      const keyId = JSON.parse(keyForTwo.stdout).id as string;
      const updated = await cli(['key', 'update', keyId, '--rate-limit', '30', '--json'], env);
      assert.equal(updated.code, 0, updated.stderr);
      assert.equal(JSON.parse(updated.stdout).rateLimit, 30);
      assert.match((await cli(['key', 'update', keyId, '--rate-limit', 'default'], env)).stdout, /rate limit the service default/);
      assert.equal((await cli(['key', 'update', keyId, '--rate-limit', '0'], env)).code, 2);
      assert.equal((await cli(['key', 'update', keyId], env)).code, 2);

      const audit = await cli(['audit', 'list', '--limit', '3', '--json'], env);
      assert.equal(audit.code, 0, audit.stderr);
      assert.deepEqual(
        JSON.parse(audit.stdout).map((e: { action: string }) => e.action),
        ['key.update', 'key.update', 'key.create'],
      );
      assert.match((await cli(['audit', 'list'], env)).stdout, /instance\.create +acme +201/);
      const badBefore = await cli(['audit', 'list', '--before', 'yesterday'], env);
      assert.equal(badBefore.code, 1);
      assert.match(badBefore.stderr, /before/);
    });

    it('makes the first console owner from the CLI, who then signs in at /console/', async () => {
      assert.match(server.output(), /Console: +http:\/\/localhost:\d+\/console\//);
      const made = await cli(['user', 'create', '--email', 'first.owner@example.com', '--role', 'owner'], env);
      assert.equal(made.code, 0, made.stderr);
      const password = /^ {2}([A-Za-z0-9]{20})$/m.exec(made.stdout)![1]!;
      const form = await fetch(url('/console/sign-in'));
      const pre = String(form.headers.get('set-cookie')).split(';')[0]!;
      const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!;
      const signedIn = await fetch(url('/console/sign-in'), {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: pre, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: csrf, email: 'first.owner@example.com', password }),
      });
      assert.equal(signedIn.status, 303);
      const cookie = signedIn.headers
        .getSetCookie()
        .find((c) => c.startsWith('ac_console='))!
        .split(';')[0]!;
      // The one-time password is the operator's: the owner chooses their own before anything else.
      const forced = await fetch(url('/console/'), { headers: { cookie }, redirect: 'manual' });
      assert.equal(forced.status, 303);
      assert.equal(forced.headers.get('location'), '/console/account/password');
      const change = await fetch(url('/console/account/password'), { headers: { cookie } });
      const token = /name="csrf-token" content="([^"]+)"/.exec(await change.text())![1]!;
      const changed = await fetch(url('/console/account/password'), {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: token, current: password, password: 'my own long passphrase 7', confirm: 'my own long passphrase 7' }),
      });
      assert.equal(changed.status, 303);
      const home = await fetch(url('/console/'), { headers: { cookie } });
      assert.equal(home.status, 200);
      assert.match(await home.text(), /Overview of [a-z]/);

      const chosen = await cli(
        ['user', 'create', '--email', 'rev@example.com', '--role', 'reviewer', '--instance', 'demo', '--password-stdin', '--json'],
        env,
        'a long and unusual passphrase\n',
      );
      assert.equal(chosen.code, 0, chosen.stderr);
      const reviewer = JSON.parse(chosen.stdout);
      assert.deepEqual([reviewer.role, reviewer.instances, reviewer.password], ['reviewer', ['demo'], undefined]);
      const weak = await cli(['user', 'create', '--email', 'weak@example.com', '--role', 'owner', '--password-stdin'], env, 'password123456\n');
      assert.equal(weak.code, 1);
      assert.match(weak.stderr, /too common/);
      // An error is said once: the list of fields repeats no line the detail already says.
      const ownerWithInstance = await cli(['user', 'create', '--email', 'acme.owner@example.com', '--role', 'owner', '--instance', 'demo'], env);
      assert.equal(ownerWithInstance.code, 1);
      assert.equal(ownerWithInstance.stderr.match(/an owner has every instance/g)?.length, 1, ownerWithInstance.stderr);
      assert.match((await cli(['user', 'list'], env)).stdout, /rev@example\.com +reviewer +demo/);
      assert.equal((await cli(['user', 'disable', reviewer.id], env)).code, 0);
      assert.match((await cli(['user', 'list', '--json'], env)).stdout, /"disabled": true/);
    });

    it('manages webhook endpoints from the CLI (--endpoint is the receiver, --url the service, as everywhere)', async () => {
      const made = await cli(
        ['webhook', 'create', '--instance', 'demo', '--endpoint', 'https://ats.example.com/hooks', '--events', 'score.finalized,assessment.completed', '--url', url(''), '--json'],
        env,
      );
      assert.equal(made.code, 0, made.stderr);
      assert.equal(made.stderr, '');
      const endpoint = JSON.parse(made.stdout);
      assert.match(endpoint.id, /^ep_[0-9a-f]{16}$/);
      assert.match(endpoint.secret, /^whsec_/);
      assert.deepEqual(endpoint.events, ['score.finalized', 'assessment.completed']);
      assert.match((await cli(['webhook', 'list', '--instance', 'demo', '--url', url('')], env)).stdout, /ats\.example\.com/);
      const moved = await cli(['webhook', 'update', endpoint.id, '--instance', 'demo', '--endpoint', 'https://ats.example.com/hooks/v2', '--json'], env);
      assert.equal(JSON.parse(moved.stdout).url, 'https://ats.example.com/hooks/v2');
      const disabled = await cli(['webhook', 'update', endpoint.id, '--instance', 'demo', '--disable', '--json'], env);
      assert.equal(JSON.parse(disabled.stdout).disabled, true);
      const bad = await cli(['webhook', 'create', '--instance', 'demo', '--endpoint', 'file:///etc/passwd'], env);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /http or https/);
      const unknown = await cli(['webhook', 'create', '--instance', 'demo', '--endpoint', 'https://ats.example.com/x', '--events', 'score.final'], env);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /score\.final is not an event/);
      assert.equal((await cli(['webhook', 'delete', endpoint.id, '--instance', 'demo'], env)).code, 0);
      assert.match((await cli(['webhook', 'list', '--instance', 'demo'], env)).stdout, /\(none\)/);

      // The older spellings still work, with a note: --url for the receiver in webhook create, --server for the service.
      const legacy = await cli(['webhook', 'create', '--instance', 'demo', '--url', 'https://old.example.com/hooks', '--server', url(''), '--json'], env);
      assert.equal(legacy.code, 0, legacy.stderr);
      assert.equal(JSON.parse(legacy.stdout).url, 'https://old.example.com/hooks');
      assert.match(legacy.stderr, /--url for the webhook endpoint is deprecated; use --endpoint URL/);
      assert.match(legacy.stderr, /--server is deprecated; use --url URL/);
      assert.equal((await cli(['webhook', 'delete', JSON.parse(legacy.stdout).id, '--instance', 'demo'], env)).code, 0);
    });

    it('the CLI explains usage mistakes', async () => {
      assert.equal((await cli(['--help'], env)).code, 0);
      const unknown = await cli(['frobnicate'], env);
      assert.equal(unknown.code, 2);
      assert.match(unknown.stderr, /unknown command/);
      const missing = await cli(['key', 'create'], env);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /--instance is required/);
      const noServer = await cli(['instance', 'list', '--url', 'http://127.0.0.1:1'], env);
      assert.equal(noServer.code, 1);
      assert.match(noServer.stderr, /cannot reach the server/);
      const wrongToken = await cli(['instance', 'list', '--token', 'not-the-token'], env);
      assert.equal(wrongToken.code, 1);
      assert.match(wrongToken.stderr, /401/);
    });

    it('restarts on the same store without seeding again, keeping data, and stops cleanly on SIGTERM', async () => {
      const stopped = await stop(server);
      assert.equal(stopped.code, 0);
      assert.ok(stopped.ms < 10_000);
      server = await start(env);
      assert.doesNotMatch(server.output(), /Seeded:/);
      assert.match((await cli(['instance', 'list'], env)).stdout, /acme/);
      const created = JSON.parse((await cli(['key', 'create', '--instance', 'demo', '--json'], env)).stdout);
      const scores = await (await fetch(url('/v1/score'), { headers: { 'X-API-Key': created.key } })).json();
      assert.equal(scores.length, 2, 'the invitations made before the restart are there');
    });
  });
}

// The e-mail issue's "done when", as a new user would try it: npm start with SMTP_URL at a local
// relay, invite yourself, get one e-mail whose link opens the portal; stop the relay, invite
// again: FAILED within the bound with the invitation kept; the operator sees both and resends.
describe('npm start with SMTP_URL [pglite]', () => {
  let dataDir: string;
  let relay: Relay;
  let server: Running;
  let env: Record<string, string>;
  let port: number;
  const url = (p: string) => `http://127.0.0.1:${port}${p}`;

  before(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'ac-smtp-'));
    relay = await startRelay();
    port = await freePort();
    env = { DATA_DIR: dataDir, PORT: String(port), ADMIN_TOKEN: '', DATABASE_URL: '', SMTP_URL: relay.url, MAIL_TIMEOUT_MS: '1500', MAIL_FROM: 'Hiring <hiring@acme.example>' };
    server = await start(env);
  });
  after(async () => {
    if (server) await stop(server);
    await relay.close().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers through the relay, reports FAILED when it is gone, and resends when it is back', async () => {
    assert.match(server.output(), new RegExp(`Mail: +e-mails are delivered through smtp://127.0.0.1:${relay.port}`));
    assert.doesNotMatch(server.output(), /dev\/mail/);
    assert.equal((await fetch(url('/dev/mail'))).status, 404, 'no development mailbox with a relay');
    const key = JSON.parse((await cli(['key', 'create', '--instance', 'demo', '--json'], env)).stdout).key as string;
    const ids = ((await (await fetch(url('/v1/assessment'), { headers: { 'X-API-Key': key } })).json()) as { id: string }[]).map((a) => a.id);
    const invite = async (email: string) => {
      const began = Date.now();
      const response = await fetch(url('/v1/invite?sendInvite=true'), {
        method: 'POST',
        headers: { 'X-API-Key': key, instance: 'demo', 'Content-Type': 'application/json' },
        body: JSON.stringify({ email, firstName: 'Me', lastName: 'Myself', assessments: ids.slice(0, 2) }),
      });
      assert.equal(response.status, 200);
      return { ...((await response.json()) as { link: string; candidateId: string; invitationStatus: string }[])[0]!, ms: Date.now() - began };
    };

    const sent = await invite('me@example.com');
    assert.equal(sent.invitationStatus, 'SENT');
    await relay.waitFor(1);
    const { mail } = relay.received[0]!;
    // The demo's display name is the sender's name, at the service's MAIL_FROM address.
    assert.deepEqual(
      mail.from?.value.map((a) => [a.name, a.address]),
      [['Demo Company', 'hiring@acme.example']],
    );
    const link = /(http:\/\/localhost:\d+\/portal\/#\?sessionToken=[A-Za-z0-9_-]+)/.exec(mail.text ?? '')![1]!;
    assert.equal(link, sent.link);
    const opened = await fetch(url('/portal/api/session'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: link.split('sessionToken=')[1] }),
    });
    assert.equal(opened.status, 200);
    const portal = await fetch(url('/portal/'), { headers: { cookie: opened.headers.get('set-cookie')!.split(';')[0]! } });
    assert.match(await portal.text(), /Hello|Your assessments/i);

    await relay.close();
    const failed = await invite('me.again@example.com');
    assert.equal(failed.invitationStatus, 'FAILED');
    assert.ok(failed.ms < 1500 + 2000, `FAILED after ${failed.ms} ms`);
    const scores = await (await fetch(url(`/v1/score?candidateIds=${failed.candidateId}`), { headers: { 'X-API-Key': key } })).json();
    assert.equal(scores.length, 2, 'the candidate and the invitations are there');

    const listed = await cli(['delivery', 'list', '--instance', 'demo', '--json'], env);
    assert.equal(listed.code, 0, listed.stderr);
    const deliveries = JSON.parse(listed.stdout) as { id: string; recipient: string; status: string }[];
    assert.deepEqual(
      deliveries.map((d) => [d.recipient, d.status]),
      [
        ['me.again@example.com', 'FAILED'],
        ['me@example.com', 'SENT'],
      ],
    );
    const table = await cli(['delivery', 'list', '--instance', 'demo', '--status', 'FAILED'], env);
    assert.match(table.stdout, /me\.again@example\.com/);
    assert.doesNotMatch(table.stdout, /me@example\.com/);

    relay = await startRelay({ port: relay.port });
    const resent = await cli(['delivery', 'resend', deliveries[0]!.id, '--instance', 'demo', '--json'], env);
    assert.equal(resent.code, 0, resent.stderr);
    assert.equal(JSON.parse(resent.stdout).status, 'SENT');
    await relay.waitFor(1);
    assert.equal(relay.received[0]!.envelopeTo[0], 'me.again@example.com');
    const bad = await cli(['delivery', 'resend', 'nope', '--instance', 'demo'], env);
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /id|400|invalid/i);
  });
});
