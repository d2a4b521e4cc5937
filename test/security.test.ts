// The OWASP API Security Top 10 (2023), item by item, as it applies to this service. Each test
// names its item. Items covered by a domain's own suite are named here with where they live:
//   API1 object-level authorisation ... here; the portal's per-candidate checks in src/portal/portal.test.ts
//   API2 authentication .............. here; one 401 for every bad key in src/modules/keys/keys.test.ts
//   API4 resource consumption ........ here; per-key budgets and the failed-auth limit in test/limits.test.ts
//   API5 function-level authorisation  here; every admin route without the token in src/modules/tenants/tenants.test.ts
//   API6 sensitive business flows .... invite floods are bounded by the per-key budget (test/limits.test.ts)
//   API7 SSRF ........................ not applicable: the service fetches no URL it is given (portal
//                                      URLs only build links; the SMTP relay is the operator's setting)
//   API10 unsafe consumption ......... the only upstream is the operator's SMTP relay: its answers are
//                                      bounded in time and size when stored (test/mail.test.ts)
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { ADMIN_TOKEN, createTestContext, describeEachStore, sampleAssessment, storeKinds, type TestContext } from './harness.js';
import { candidate, invite as inviteThroughApi } from './support/portal.js';

const json = (r: { headers: Record<string, unknown> }) => String(r.headers['content-type']);

describeEachStore('OWASP API1: object-level authorisation across instances', (ctx) => {
  let a: string;
  let b: string;
  let keyA: string;
  let keyB: string;
  let candidateB: string;
  let assessmentB: string;
  before(async () => {
    a = await ctx().instance('own');
    b = await ctx().instance('other');
    await ctx().publish(a, sampleAssessment('shared-id'));
    await ctx().publish(b, sampleAssessment('shared-id'));
    keyA = await ctx().key([a]);
    keyB = await ctx().key([b]);
    candidateB = (await inviteThroughApi(ctx(), { instance: b, key: keyB }, { email: 'secret@b.example', firstName: 'Bee', lastName: 'Other' }, ['shared-id'])).candidateId;
    assessmentB = (await ctx().request({ method: 'GET', url: '/v1/score', headers: { 'x-api-key': keyB } })).json()[0].assessmentId;
  });

  it("never shows another instance's records, even by their exact ids", async () => {
    for (const url of [
      `/v1/score?candidateIds=${candidateB}`,
      `/v1/score?assessmentIds=${assessmentB}`,
      `/v1/score?candidateIds=${candidateB}&assessmentIds=${assessmentB}`,
      '/v1/score',
    ]) {
      const response = await ctx().request({ method: 'GET', url, headers: { 'x-api-key': keyA } });
      assert.equal(response.statusCode, 200, url);
      assert.deepEqual(response.json(), [], url);
    }
    const listed = (await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': keyA } })).json();
    assert.deepEqual(
      listed.map((x: { instance: string }) => x.instance),
      [a],
    );
  });

  it('refuses the other instance by header on every public endpoint, alike whether it exists', async () => {
    for (const instance of [b, 'does-not-exist']) {
      const calls = [
        { method: 'GET' as const, url: '/v1/assessment' },
        { method: 'GET' as const, url: '/v1/score' },
        { method: 'POST' as const, url: '/v1/invite', payload: { email: 'x@a.example', firstName: 'X', lastName: 'Y', assessments: ['shared-id'] } },
      ];
      for (const call of calls) {
        const response = await ctx().request({ ...call, headers: { 'x-api-key': keyA, instance } });
        assert.equal(response.statusCode, 403, `${call.method} ${call.url} ${instance}`);
        assert.equal(response.json().detail, 'This API key is not granted the requested instance');
      }
    }
    // Inviting the other instance's candidate's e-mail through one's own instance makes a new person.
    const mine = await ctx().request({
      method: 'POST',
      url: '/v1/invite',
      headers: { 'x-api-key': keyA, instance: a },
      payload: { email: 'secret@b.example', firstName: 'A', lastName: 'Mine', assessments: ['shared-id'] },
    });
    assert.notEqual(mine.json()[0].candidateId, candidateB);
  });

  it("keeps admin paths of one instance from reaching another instance's objects", async () => {
    const attempts = await ctx().request({ method: 'GET', url: `/admin/v1/instances/${a}/candidates/${candidateB}/attempts` });
    assert.ok([200, 404].includes(attempts.statusCode));
    if (attempts.statusCode === 200) assert.deepEqual(attempts.json(), []);
  });
});

describe('OWASP API2: no secret in any log line, response or error', () => {
  for (const kind of storeKinds()) {
    it(`keeps keys, the admin token and link tokens out of logs and answers [${kind.name}]`, async () => {
      const stream = new PassThrough();
      let logged = '';
      stream.on('data', (chunk) => (logged += chunk));
      const ctx = await createTestContext(kind, { logStream: stream });
      try {
        const instance = await ctx.instance('logs');
        await ctx.publish(instance, sampleAssessment());
        const key = await ctx.key([instance]);
        const revoked = await ctx.key([instance]);
        const { token } = await inviteThroughApi(ctx, { instance, key }, { email: 'logs@example.com', firstName: 'Lo', lastName: 'Gs' }, ['sample'], { query: '?sendInvite=true' });
        const opened = await ctx.request({ method: 'POST', url: '/portal/api/session', payload: { token } });
        const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
        await ctx.request({ method: 'GET', url: '/portal/', headers: { cookie } });
        const keys = (await ctx.request({ method: 'GET', url: '/admin/v1/keys' })).json() as { id: string }[];
        await ctx.request({ method: 'POST', url: `/admin/v1/keys/${keys.at(-1)!.id}/revoke` });
        const answers = [
          await ctx.request({ method: 'GET', url: `/v1/score?api_key=${key}`, headers: { 'x-api-key': revoked } }),
          await ctx.request({ method: 'GET', url: `/v1/score?candidateIds=${key}`, headers: { 'x-api-key': key } }),
          await ctx.request({ method: 'GET', url: '/v1/score', headers: { 'x-api-key': `${key}x` } }),
          await ctx.request({ method: 'GET', url: '/admin/v1/keys', headers: { authorization: `Bearer ${ADMIN_TOKEN}x` } }),
          await ctx.request({ method: 'GET', url: `/nowhere?token=${token}` }),
          await ctx.request({ method: 'POST', url: '/portal/api/session', payload: { token: `${token}x` } }),
        ];
        assert.ok(logged.includes('"statusCode":401'), 'requests were logged');
        const cookieValue = cookie.split('=')[1]!;
        for (const secret of [key, revoked, ADMIN_TOKEN, token, cookieValue]) {
          assert.ok(!logged.includes(secret), `a secret reached the log: ${secret.slice(0, 8)}…`);
          for (const answer of answers) assert.ok(!answer.body.includes(secret), `a secret came back in ${answer.statusCode} ${answer.body.slice(0, 80)}`);
        }
        assert.match(logged, /api_key=\[redacted\]/);
        // A key is not accepted from the query string either.
        assert.equal(answers[0]!.statusCode, 401);
      } finally {
        await ctx.close();
      }
    });
  }
});

describeEachStore('OWASP API3: only the documented properties leave the service', (ctx) => {
  it('answers with exactly the documented fields: invite, scores, assessments, keys', async () => {
    const instance = await ctx().instance('props');
    await ctx().publish(instance, sampleAssessment('sample', { typing: true }));
    const key = await ctx().key([instance]);
    const invite = await ctx().request({
      method: 'POST',
      url: '/v1/invite?sendInvite=true',
      headers: { 'x-api-key': key, instance },
      payload: { email: 'props@example.com', firstName: 'P', lastName: 'Q', assessments: ['sample'], isAdmin: true, candidateId: 'forced' },
    });
    assert.equal(invite.statusCode, 200, invite.body);
    const doc = (await ctx().request({ method: 'GET', url: '/openapi.json' })).json();
    const documented = (path: string, method: string) => {
      let schema = doc.paths[path][method].responses['200'].content['application/json'].schema;
      if (schema.$ref) schema = doc.components.schemas[schema.$ref.split('/').pop()];
      let items = schema.items;
      if (items.$ref) items = doc.components.schemas[items.$ref.split('/').pop()];
      return Object.keys(items.properties).sort();
    };
    // `skipped` is documented and present only when an assessment of the invite could not be reopened.
    assert.deepEqual(
      Object.keys(invite.json()[0]).sort(),
      documented('/v1/invite', 'post').filter((name: string) => name !== 'skipped'),
    );
    assert.deepEqual(Object.keys(invite.json()[0]).sort(), ['candidateId', 'invitationStatus', 'link']);
    assert.notEqual(invite.json()[0].candidateId, 'forced', 'unknown body properties are not bound to anything');
    const score = (await ctx().request({ method: 'GET', url: '/v1/score', headers: { 'x-api-key': key } })).json()[0];
    assert.deepEqual(Object.keys(score).sort(), documented('/v1/score', 'get'));
    assert.deepEqual(Object.keys(score).sort(), [
      'assessmentId',
      'assessmentName',
      'assessmentStatus',
      'candidateId',
      'categoryScores',
      'completion',
      'finished',
      'redFlag',
      'scoreStatus',
      'started',
      'totalScore',
      'typingSpeed',
    ]);
    const assessment = (await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key } })).json()[0];
    assert.deepEqual(Object.keys(assessment).sort(), documented('/v1/assessment', 'get'));
    assert.ok(!Object.keys(assessment).some((k) => /instanceId|versionId|content|answer|correct/i.test(k)), 'no internal ids or answer keys');
    const keys = await ctx().request({ method: 'GET', url: '/admin/v1/keys' });
    for (const listed of keys.json()) {
      assert.ok(!('key' in listed) && !('hash' in listed) && !('keyHash' in listed), JSON.stringify(listed));
      assert.doesNotMatch(JSON.stringify(listed), /ack_[A-Za-z0-9_-]{20,}/);
    }
  });
});

describeEachStore('OWASP API4: unrestricted resource consumption', (ctx) => {
  let instance: string;
  let key: string;
  before(async () => {
    instance = await ctx().instance('limits');
    await ctx().publish(instance, sampleAssessment());
    key = await ctx().key([instance]);
  });
  const invite = (payload: unknown, headers: Record<string, string> = {}) =>
    ctx().request({ method: 'POST', url: '/v1/invite', headers: { 'x-api-key': key, instance, ...headers }, payload: payload as Record<string, unknown> });

  it('bounds bodies, lists, ids and strings, each with a problem answer and nothing written', async () => {
    const cases: [string, Promise<{ statusCode: number; headers: Record<string, unknown> }>, number][] = [
      [
        'body over 1 MB',
        invite(JSON.stringify({ email: 'a@b.co', firstName: 'x'.repeat(1024 * 1024), lastName: 'y', assessments: ['sample'] }), { 'content-type': 'application/json' }),
        413,
      ],
      ['51 assessments', invite({ email: 'a@b.co', firstName: 'x', lastName: 'y', assessments: Array.from({ length: 51 }, (_, i) => `a${i}`) }), 400],
      ['e-mail over 254 characters', invite({ email: `${'a'.repeat(250)}@b.co`, firstName: 'x', lastName: 'y', assessments: ['sample'] }), 400],
      ['first name over 100 characters', invite({ email: 'a@b.co', firstName: 'x'.repeat(5000), lastName: 'y', assessments: ['sample'] }), 400],
      [
        'body nested 500 levels deep',
        invite('{"email":"a@b.co","firstName":"x","lastName":"y","assessments":["sample"],"z":' + '['.repeat(500) + ']'.repeat(500) + '}', { 'content-type': 'application/json' }),
        400,
      ],
      [
        '501 candidate ids',
        ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${Array.from({ length: 501 }, (_, i) => `c${i}`).join(',')}`, headers: { 'x-api-key': key } }),
        400,
      ],
      [
        '501 assessment ids',
        ctx().request({ method: 'GET', url: `/v1/score?assessmentIds=${Array.from({ length: 501 }, (_, i) => `a${i}`).join(',')}`, headers: { 'x-api-key': key } }),
        400,
      ],
      ['admin list over its limit', ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/deliveries?limit=100000` }), 400],
    ];
    for (const [name, pending, status] of cases) {
      const response = await pending;
      assert.equal(response.statusCode, status, name);
      if (status >= 400) assert.equal(json(response), 'application/problem+json; charset=utf-8', name);
    }
    const scores = (await ctx().request({ method: 'GET', url: '/v1/score', headers: { 'x-api-key': key } })).json();
    assert.equal(scores.length, 0, 'nothing was written');
  });
});

describeEachStore('OWASP API4: probing for paths', (ctx) => {
  it('turns away an address that asks for many unknown paths, and only that address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 121; i++) {
      statuses.push((await ctx().request({ method: 'GET', url: `/probe-${i}`, remoteAddress: '198.51.100.7' })).statusCode);
    }
    assert.deepEqual([...new Set(statuses.slice(0, 120))], [404]);
    const refused = await ctx().request({ method: 'GET', url: '/probe-last', remoteAddress: '198.51.100.7' });
    assert.equal(refused.statusCode, 429);
    assert.match(String(refused.headers['retry-after']), /^\d+$/);
    assert.equal(json(refused), 'application/problem+json; charset=utf-8');
    assert.equal((await ctx().request({ method: 'GET', url: '/probe-last', remoteAddress: '198.51.100.8' })).statusCode, 404, 'another address is not affected');
    assert.equal((await ctx().request({ method: 'GET', url: '/healthz', remoteAddress: '198.51.100.7' })).statusCode, 200, 'known routes still answer');
  });
});

describe('OWASP API4: slow clients are cut off', () => {
  const kind = storeKinds()[0]!;
  let ctx: TestContext & { close(): Promise<void> };
  let port: number;
  before(async () => {
    ctx = await createTestContext(kind, { requestTimeoutMs: 1000 });
    await ctx.app.listen({ port: 0, host: '127.0.0.1' });
    port = (ctx.app.server.address() as { port: number }).port;
  });
  after(async () => ctx.close());

  const slowClient = (parts: string[]) =>
    new Promise<{ closedAfterMs: number; answer: string }>((resolve) => {
      const began = Date.now();
      const socket = connect(port, '127.0.0.1');
      let answer = '';
      let i = 0;
      const timer = setInterval(() => {
        if (i < parts.length && !socket.destroyed) socket.write(parts[i++]!);
      }, 200);
      socket.on('data', (d) => (answer += d));
      socket.on('error', () => {});
      socket.on('close', () => {
        clearInterval(timer);
        resolve({ closedAfterMs: Date.now() - began, answer });
      });
    });

  it('closes a connection that trickles its headers or body (slowloris)', async () => {
    const headers = Array.from({ length: 100 }, (_, i) => (i === 0 ? 'GET /healthz HTTP/1.1\r\nHost: x\r\n' : `X-Slow-${i}: y\r\n`));
    const slowHeaders = await slowClient(headers);
    assert.ok(slowHeaders.closedAfterMs < 100 * 200, `closed after ${slowHeaders.closedAfterMs} ms, before the client finished`);
    assert.doesNotMatch(slowHeaders.answer, /200 OK/);
    const body = ['POST /v1/invite HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n', ...Array.from({ length: 100 }, () => '{')];
    const slowBody = await slowClient(body);
    assert.ok(slowBody.closedAfterMs < 100 * 200, `closed after ${slowBody.closedAfterMs} ms`);
    // The key check answers 401 before the body is read; the request timeout then ends the upload.
    assert.match(slowBody.answer, /HTTP\/1\.1 408 Request Timeout\r\nContent-Type: application\/problem\+json/);
    const huge = await slowClient([`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    assert.match(huge.answer, /^HTTP\/1\.1 431 .*\r\nContent-Type: application\/problem\+json/);
    const garbage = await slowClient(['NOT HTTP AT ALL\r\n\r\n']);
    assert.match(garbage.answer, /^HTTP\/1\.1 400 Bad Request\r\nContent-Type: application\/problem\+json/);
    const healthy = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(healthy.status, 200, 'the server still serves others');
  });

  it('answers an HTTP/1.1 request without Host with a problem document, not an empty 400', async () => {
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.end('GET /v1/score HTTP/1.1\r\nConnection: close\r\n\r\n'));
      let text = '';
      socket.on('data', (d) => (text += d));
      socket.on('error', () => {});
      socket.on('close', () => resolve(text));
    });
    assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.match(answer, /\r\ncontent-type: application\/problem\+json/i);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { type: string; detail: string; errors: { in: string; name: string }[] };
    assert.equal(body.type, 'urn:assessment-connect:problem:malformed-request');
    assert.match(body.detail, /Host/);
    assert.deepEqual(
      body.errors.map((e) => [e.in, e.name]),
      [['header', 'host']],
    );
  });
});

describeEachStore('OWASP API5: function-level authorisation', (ctx) => {
  it('never lets a client key, a portal session or a wrong scheme reach /admin, nor the admin token reach /v1', async () => {
    const instance = await ctx().instance('fla');
    await ctx().publish(instance, sampleAssessment());
    const key = await ctx().key([instance]);
    const { cookie } = await candidate(ctx(), { instance, key }, { email: 'f@l.a', firstName: 'F', lastName: 'L' }, ['sample']);
    for (const headers of [
      { authorization: `Bearer ${key}` },
      { authorization: key, 'x-api-key': key },
      { authorization: `Basic ${Buffer.from(`admin:${ADMIN_TOKEN}`).toString('base64')}` },
      { authorization: `Bearer ${ADMIN_TOKEN.toUpperCase()}` },
      { authorization: '', cookie },
    ]) {
      for (const [method, url] of [
        ['GET', '/admin/v1/keys'],
        ['POST', '/admin/v1/instances'],
        ['GET', `/admin/v1/instances/${instance}/deliveries`],
      ] as const) {
        const response = await ctx().request({ method, url, headers, payload: method === 'POST' ? { name: 'sneaky' } : undefined });
        assert.equal(response.statusCode, 401, `${method} ${url} with ${Object.keys(headers).join('+')}`);
      }
    }
    for (const headers of [{ 'x-api-key': ADMIN_TOKEN }, { authorization: `Bearer ${ADMIN_TOKEN}` }, { cookie }]) {
      const response = await ctx().request({ method: 'GET', url: '/v1/score', headers });
      assert.equal(response.statusCode, 401, Object.keys(headers).join());
    }
    const instances = (await ctx().request({ method: 'GET', url: '/admin/v1/instances' })).json() as { name: string }[];
    assert.ok(!instances.some((i) => i.name === 'sneaky'));
  });
});

describeEachStore('OWASP API8: security misconfiguration', (ctx) => {
  it('keeps CORS closed: no cross-origin grant on any answer or preflight', async () => {
    const key = await ctx().key([await ctx().instance('cors')]);
    const origin = 'https://evil.example';
    const answers = [
      await ctx().request({ method: 'OPTIONS', url: '/v1/score', headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': 'x-api-key' } }),
      await ctx().request({ method: 'GET', url: '/v1/score', headers: { origin, 'x-api-key': key } }),
      await ctx().request({ method: 'GET', url: '/admin/v1/instances', headers: { origin } }),
      await ctx().request({ method: 'GET', url: '/portal/', headers: { origin } }),
    ];
    for (const answer of answers) {
      assert.equal(answer.headers['access-control-allow-origin'], undefined);
      assert.equal(answer.headers['access-control-allow-credentials'], undefined);
    }
    assert.ok(answers[0]!.statusCode >= 400, 'a preflight is not approved');
  });

  it('sends protective headers and reveals no software versions', async () => {
    for (const url of ['/healthz', '/v1/score', '/admin/v1/instances', '/nowhere', '/openapi.json']) {
      const response = await ctx().request({ method: 'GET', url, headers: { authorization: '' } });
      assert.equal(response.headers['x-content-type-options'], 'nosniff', url);
      assert.equal(response.headers['referrer-policy'], 'no-referrer', url);
      assert.equal(response.headers['x-powered-by'], undefined, url);
      assert.equal(response.headers.server, undefined, url);
    }
    const portal = await ctx().request({ method: 'GET', url: '/portal/' });
    assert.match(String(portal.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.doesNotMatch(String(portal.headers['content-security-policy']), /unsafe-inline'? *;? *script|script-src[^;]*unsafe-inline/);
  });

  it('marks every API answer, errors included, Cache-Control: no-store (keys travel in X-API-Key, which shared caches do not treat as private)', async () => {
    const instance = await ctx().instance('nostore');
    const key = await ctx().key([instance]);
    const answers = [
      await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key } }),
      await ctx().request({ method: 'GET', url: '/v1/score?limit=1', headers: { 'x-api-key': key } }),
      await ctx().request({ method: 'GET', url: '/v1/score', headers: { 'x-api-key': 'ack_not-a-real-key-0000000000000000000000000' } }),
      await ctx().request({ method: 'GET', url: '/v1/score?limit=0', headers: { 'x-api-key': key } }),
      await ctx().request({ method: 'GET', url: '/v1/nothing-here', headers: { 'x-api-key': key } }),
      await ctx().request({ method: 'POST', url: '/v1/invite', headers: { 'x-api-key': key, instance, 'content-type': 'application/json' }, payload: '{"email":' }),
      await ctx().request({ method: 'GET', url: '/admin/v1/instances' }),
      await ctx().request({ method: 'GET', url: '/admin/v1/keys', headers: { authorization: 'Bearer wrong-token-wrong-token' } }),
      await ctx().request({ method: 'GET', url: '/admin/v1/nothing-here' }),
      await ctx().request({ method: 'POST', url: '/portal/api/session', payload: { token: 'not-a-token' } }),
      await ctx().request({ method: 'GET', url: '/portal/api/nothing-here' }),
    ];
    for (const answer of answers) assert.equal(answer.headers['cache-control'], 'no-store', `${answer.statusCode} ${answer.body.slice(0, 80)}`);
    assert.deepEqual(
      answers.map((a) => a.statusCode),
      [200, 200, 401, 400, 404, 400, 200, 401, 404, answers[9]!.statusCode, 404],
    );
  });

  it('accepts integer query parameters only as plain decimal digits', async () => {
    const key = await ctx().key([await ctx().instance('digits')]);
    for (const limit of ['1e3', '0x10', '0b1', '0o7', '1.0', ' 5', '+5', '5 ', 'Infinity']) {
      const response = await ctx().request({ method: 'GET', url: `/v1/score?limit=${encodeURIComponent(limit)}`, headers: { 'x-api-key': key } });
      assert.equal(response.statusCode, 400, `limit=${limit}`);
      assert.deepEqual(
        response.json().errors.map((e: { in: string; name: string }) => [e.in, e.name]),
        [['query', 'limit']],
        limit,
      );
      const audit = await ctx().request({ method: 'GET', url: `/admin/v1/audit?limit=${encodeURIComponent(limit)}` });
      assert.equal(audit.statusCode, 400, `audit limit=${limit}`);
    }
    assert.equal((await ctx().request({ method: 'GET', url: '/v1/score?limit=16', headers: { 'x-api-key': key } })).statusCode, 200);
    assert.equal((await ctx().request({ method: 'GET', url: '/admin/v1/audit?limit=1000' })).statusCode, 200);
  });

  it('answers odd methods and malformed input with problems, never a stack trace', async () => {
    const answers = [
      await ctx().request({ method: 'TRACE' as 'GET', url: '/v1/score' }),
      await ctx().request({ method: 'POST', url: '/v1/invite', headers: { 'x-api-key': 'ack_x', 'content-type': 'application/json' }, payload: '{"email":' }),
      await ctx().request({ method: 'GET', url: '/v1/score?candidateIds=%E0%A4%A' }),
      await ctx().request({ method: 'GET', url: '/%' }),
    ];
    for (const answer of answers) {
      assert.ok(answer.statusCode >= 400 && answer.statusCode < 500, `${answer.statusCode} ${answer.body}`);
      assert.equal(json(answer), 'application/problem+json; charset=utf-8', answer.body);
      assert.doesNotMatch(answer.body, /\n\s+at |node_modules|\.ts:\d+/);
    }
  });
});

describeEachStore('OWASP API9: inventory', (ctx) => {
  it('documents every public and admin route in the OpenAPI document', async () => {
    const doc = (await ctx().request({ method: 'GET', url: '/openapi.json' })).json() as { paths: Record<string, Record<string, unknown>> };
    const documented = new Set(Object.entries(doc.paths).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p.replace(/\{(\w+)\}/g, ':$1')}`)));
    // printRoutes draws a tree; each line's indentation (4 characters a level) says whose child it is.
    const stack: string[] = [];
    const routes = ctx()
      .app.printRoutes({ commonPrefix: false })
      .split('\n')
      .flatMap((line) => {
        const m = /^([│├└─\s]*)(\S+) \(([A-Z, ]+)\)$/.exec(line);
        if (!m) return [];
        const depth = Math.max(0, Math.round(m[1]!.length / 4) - 1);
        stack[depth] = (depth > 0 ? stack[depth - 1]! : '') + m[2]!;
        return m[3]!.split(', ').map((method) => `${method} ${stack[depth]}`);
      })
      .filter((r) => /^(GET|POST|PUT|PATCH|DELETE) \/(v1|admin\/v1)\//.test(r));
    assert.ok(routes.length >= 10, `found ${routes.length} routes`);
    const undocumented = routes.filter((r) => !documented.has(r));
    assert.deepEqual(undocumented, []);
    assert.equal((doc as unknown as { info: { version: string } }).info.version, '1.0');
  });
});
