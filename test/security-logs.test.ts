// No secret and no personal datum of a URL reaches a log line: report links' signatures, link
// tokens, keys, passwords, the console's search terms and e-mail addresses, on every route that
// takes them and on every route at all, by the one list of src/http/logging.ts.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { it } from 'node:test';
import { scrubUrl } from '../src/http/scrub-url.js';
import { describeEachStore, sampleAssessment } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';
import { takeAssessment } from './support/take.js';

const lines: string[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    lines.push(String(chunk));
    done();
  },
});
/** The log lines written since `from`, and the request lines among them. */
const since = (from: number) => lines.slice(from).join('');
const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

it('scrubs by one list: names, e-mail addresses anywhere, and URLs inside parameters', () => {
  assert.equal(scrubUrl('/reports/c/alpha?expires=1&signature=AbC'), '/reports/c/alpha?expires=1&signature=[redacted]');
  assert.equal(scrubUrl('/console/candidates?instance=a&q=Jane+Doe'), '/console/candidates?instance=a&q=[redacted]');
  assert.equal(scrubUrl('/x?Password=hunter2&SessionToken=t'), '/x?Password=[redacted]&SessionToken=[redacted]');
  assert.equal(scrubUrl('/admin/v1/x/jane@example.com'), '/admin/v1/x/[email]');
  assert.equal(scrubUrl('/x?to=jane%40example.com'), '/x?to=%5Bemail%5D');
  assert.equal(scrubUrl('/console/sign-in?next=%2Fconsole%2Fcandidates%3Fq%3DJane'), '/console/sign-in?next=%2Fconsole%2Fcandidates%3Fq%3D%5Bredacted%5D');
  assert.equal(scrubUrl('/portal/#?sessionToken=abc'), '/portal/#?sessionToken=[redacted]');
  assert.equal(scrubUrl('/v1/score?assessmentIds=a,b'), '/v1/score?assessmentIds=a,b');
});

describeEachStore(
  'secrets and personal data stay out of request log lines',
  (ctx) => {
    let instance: string;
    let key: string;
    let candidateId: string;

    it('the report link: neither its page nor its PDF logs the signature', async () => {
      instance = await ctx().instance('logs');
      await ctx().publish(instance, sampleAssessment('alpha'));
      key = await ctx().key([instance]);
      candidateId = await takeAssessment(ctx(), instance, key, { email: 'logged.person@example.com', firstName: 'Loggedfirst', lastName: 'Loggedlast' });
      const candidate = (await ctx().request({ method: 'GET', url: `/v1/candidates/${candidateId}`, headers: { 'x-api-key': key } })).json();
      const link = pathOf((candidate.invitations as { reportUrl: string }[])[0]!.reportUrl);
      const signature = new URL(link, 'http://x').searchParams.get('signature')!;
      const from = lines.length;
      assert.equal((await ctx().request({ method: 'GET', url: link })).statusCode, 200);
      assert.equal((await ctx().request({ method: 'GET', url: link.replace('/alpha?', '/alpha.pdf?') })).statusCode, 200);
      const log = since(from);
      assert.match(log, /signature=\[redacted\]/);
      assert.ok(!log.includes(signature), 'the signature reached the log');
    });

    it('the console: candidate search terms, actor filters, and the sign-in redirect that carries them', async () => {
      const email = `owner-logs-${process.pid}@example.com`;
      const { password } = await consoleUser(ctx(), email, 'owner');
      const owner = await consoleAs(ctx(), email, password);
      const from = lines.length;
      for (const q of ['Loggedfirst', 'logged.person@example.com', 'logged.person%40example.com']) {
        assert.equal((await owner.get(`/console/candidates?instance=${instance}&q=${q}`)).statusCode, 200);
      }
      assert.equal((await owner.get(`/console/audit?actor=${encodeURIComponent(`user:${email}`)}`)).statusCode, 200);
      // Signed out: redirected to sign-in with next= carrying the search.
      const redirected = await ctx().request({ method: 'GET', url: `/console/candidates?instance=${instance}&q=Loggedlast` });
      assert.equal(redirected.statusCode, 303);
      assert.equal((await ctx().request({ method: 'GET', url: String(redirected.headers.location) })).statusCode, 200);
      const log = since(from);
      for (const secret of ['Loggedfirst', 'Loggedlast', 'logged.person', email, encodeURIComponent(email), password, owner.cookie.split('=')[1]!]) {
        assert.ok(!log.includes(secret), `${secret} reached the log`);
      }
      assert.match(log, /q=\[redacted\]/);
    });

    it('every route: secret-named parameters and e-mail addresses in the path or query never reach a line', async () => {
      const stack: string[] = [];
      const routes = ctx()
        .app.printRoutes({ commonPrefix: false })
        .split('\n')
        .flatMap((line) => {
          const m = /^([│├└─\s]*)(\S+) \(([A-Z, ]+)\)$/.exec(line);
          if (!m) return [];
          const depth = Math.max(0, Math.round(m[1]!.length / 4) - 1);
          stack[depth] = (depth > 0 ? stack[depth - 1]! : '') + m[2]!;
          return m[3]!.split(', ').map((method) => [method, stack[depth]!] as const);
        })
        .filter(([method, route]) => method !== 'HEAD' && method !== 'OPTIONS' && !route.includes('*'));
      assert.ok(routes.length >= 50, `found ${routes.length} routes`);
      const secrets = {
        signature: 'SIGsecret1',
        token: 'TOKsecret2',
        sessionToken: 'SESSsecret3',
        key: 'KEYsecret4',
        api_key: 'APIsecret5',
        password: 'PWsecret6',
        q: 'SEARCHsecret7',
        email: 'mailsecret8@example.com',
      };
      const query = new URLSearchParams(secrets).toString() + '&note=hidden9%40example.com';
      const from = lines.length;
      for (const [method, route] of routes) {
        const path = route.replace(/:(\w+)/g, (_m, name: string) => (name === 'instance' ? 'who10@example.com' : name === 'candidateId' || name === 'id' ? candidateId : 'alpha'));
        await ctx().request({ method: method as 'GET', url: `${path}?${query}`, headers: { 'x-api-key': key, cookie: 'ac_console=x' } });
      }
      const log = since(from);
      assert.ok(log.split('\n').filter((l) => l.includes('"msg":"request')).length >= routes.length, 'every request was logged');
      for (const secret of [...Object.values(secrets), 'mailsecret8', 'hidden9', 'who10']) assert.ok(!log.includes(secret), `${secret} reached the log`);
    });
  },
  { logStream },
);
