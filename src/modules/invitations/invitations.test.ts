import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { ADMIN_TOKEN, describeEachStore, sampleAssessment } from '../../../test/harness.js';
import { simpleParser } from 'mailparser';
import { buildApp } from '../../app.js';
import { createFileMailer } from '../mail/mailer.js';

describeEachStore('POST /v1/invite', (ctx) => {
  async function tenant() {
    const instance = await ctx().instance();
    await ctx().publish(instance, sampleAssessment('alpha', { name: 'Alpha' }));
    await ctx().publish(instance, sampleAssessment('beta', { name: 'Beta', durationMinutes: 45 }));
    const key = await ctx().key([instance]);
    return { instance, key };
  }
  const invite = (t: { instance: string; key: string }, payload: unknown, query = '', headers: Record<string, string> = {}) =>
    ctx().request({ method: 'POST', url: `/v1/invite${query}`, headers: { 'x-api-key': t.key, instance: t.instance, ...headers }, payload: payload as object });
  const count = async (table: string, instance: string) =>
    (await ctx().db.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} t JOIN instances i ON i.id = t.instance_id WHERE i.name = $1`, [instance])).rows[0]!.n;
  const person = { email: 'Ada.Lovelace@Example.com', firstName: 'Ada', lastName: 'Lovelace' };

  it('invites a new candidate: 200, one result with link and candidateId, no invitationStatus', async () => {
    const t = await tenant();
    const response = await invite(t, { ...person, assessments: ['alpha', 'beta'] });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.length, 1);
    assert.deepEqual(Object.keys(body[0]).sort(), ['candidateId', 'link']);
    assert.match(body[0].link, /^http:\/\/portal\.test\/portal\/#\?sessionToken=[A-Za-z0-9_-]{43}$/);
    const token = body[0].link.split('sessionToken=')[1];
    const { rows } = await ctx().db.query<{ expires: boolean; n: number }>(
      `SELECT expires_at BETWEEN now() + interval '13 days 23 hours' AND now() + interval '14 days 1 hour' AS expires, cardinality(assessment_ids) AS n
         FROM invite_links WHERE token_hash = sha256(convert_to($1, 'UTF8'))`,
      [token],
    );
    assert.deepEqual(rows, [{ expires: true, n: 2 }], 'the token is stored hashed, valid 14 days, for both assessments');
    assert.equal(await count('invitations', t.instance), 2);
    const score = await ctx().request({ method: 'GET', url: '/v1/score', headers: { 'x-api-key': t.key } });
    assert.deepEqual(
      score
        .json()
        .map((r: { assessmentId: string; assessmentStatus: string }) => [r.assessmentId, r.assessmentStatus])
        .sort(),
      [
        ['alpha', 'INVITED'],
        ['beta', 'INVITED'],
      ],
    );
  });

  it('identifies the candidate by e-mail, case-insensitively, and keeps the latest names', async () => {
    const t = await tenant();
    const first = (await invite(t, { ...person, assessments: ['alpha'] })).json()[0];
    const second = (await invite(t, { email: 'ada.lovelace@EXAMPLE.com', firstName: '  Augusta ', lastName: 'King', assessments: ['alpha', 'beta'] })).json()[0];
    assert.equal(second.candidateId, first.candidateId);
    assert.notEqual(second.link, first.link, 'a fresh token on every invite');
    const { rows } = await ctx().db.query('SELECT first_name, last_name FROM candidates WHERE id = $1', [first.candidateId]);
    assert.deepEqual(rows, [{ first_name: 'Augusta', last_name: 'King' }]);
    assert.equal(await count('candidates', t.instance), 1);
    assert.equal(await count('invitations', t.instance), 2, 'alpha is not invited twice');
  });

  it('keeps progress and scores when a candidate is invited again', async () => {
    const t = await tenant();
    const { candidateId } = (await invite(t, { ...person, assessments: ['alpha'] })).json()[0];
    await ctx().db.query(
      `UPDATE invitations SET assessment_status = 'COMPLETED', score_status = 'PASS', completion = 100, total_score = 90,
              started_at = now() - interval '10 minutes', finished_at = now(), category_scores = '[{"name":"Reasoning","score":90},{"name":"Writing","score":90}]'
        WHERE candidate_id = $1`,
      [candidateId],
    );
    await invite(t, { ...person, assessments: 'alpha' });
    const [record] = (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': t.key } })).json();
    assert.equal(record.assessmentStatus, 'COMPLETED');
    assert.equal(record.scoreStatus, 'PASS');
    assert.equal(record.totalScore, '90');
  });

  it('accepts a comma-separated string and folds duplicates', async () => {
    const t = await tenant();
    const response = await invite(t, { ...person, assessments: ' alpha , beta,alpha' });
    assert.equal(response.statusCode, 200);
    assert.equal(await count('invitations', t.instance), 2);
    const again = await invite(t, { ...person, email: 'x@example.com', assessments: ['beta', 'beta'] });
    assert.equal(again.statusCode, 200);
    assert.equal(await count('invitations', t.instance), 3);
  });

  it('rejects an unknown assessment naming it, and writes nothing', async () => {
    const t = await tenant();
    const other = await ctx().instance();
    await ctx().publish(other, sampleAssessment('gamma'));
    const response = await invite(t, { ...person, assessments: ['alpha', 'gamma', 'nope'] });
    assert.equal(response.statusCode, 400);
    const problem = response.json();
    assert.deepEqual(
      problem.errors.map((e: { name: string }) => e.name),
      ['assessments.1', 'assessments.2'],
    );
    assert.match(problem.detail, /gamma, nope/);
    assert.equal(await count('candidates', t.instance), 0);
    assert.equal(await count('invitations', t.instance), 0);
    assert.equal(await count('invite_links', t.instance), 0);
  });

  it('validates every field and names each offending one', async () => {
    const t = await tenant();
    const cases: [unknown, string[]][] = [
      [{}, ['email', 'firstName', 'lastName', 'assessments']],
      [{ ...person, email: 'not-an-email', assessments: ['alpha'] }, ['email']],
      [{ ...person, email: '', assessments: ['alpha'] }, ['email']],
      [{ ...person, email: `${'a'.repeat(250)}@x.com`, assessments: ['alpha'] }, ['email']],
      [{ ...person, firstName: '   ', assessments: ['alpha'] }, ['firstName']],
      [{ ...person, lastName: '', assessments: ['alpha'] }, ['lastName']],
      [{ ...person, lastName: 'Evil\nBcc: x@y.z', assessments: ['alpha'] }, ['lastName']],
      [{ ...person, firstName: 42, assessments: ['alpha'] }, ['firstName']],
      [{ ...person, assessments: [] }, ['assessments']],
      [{ ...person, assessments: '' }, ['assessments']],
      [{ ...person, assessments: 'alpha,,beta' }, ['assessments.1']],
      [{ ...person, assessments: ['alpha', ''] }, ['assessments']],
      [{ ...person, assessments: ['alpha', '  '] }, ['assessments.1']],
      [{ ...person, assessments: Array.from({ length: 51 }, (_, i) => `a${i}`) }, ['assessments']],
      [{ ...person, assessments: [1, 2] }, ['assessments']],
      [{ ...person, assessments: { alpha: true } }, ['assessments']],
      [[person], ['(body)']],
      ['"just a string"', ['(body)']],
    ];
    for (const [payload, fields] of cases) {
      const response = await ctx().request({
        method: 'POST',
        url: '/v1/invite',
        headers: { 'x-api-key': t.key, instance: t.instance, 'content-type': 'application/json' },
        payload: typeof payload === 'string' ? payload : JSON.stringify(payload),
      });
      assert.equal(response.statusCode, 400, `${JSON.stringify(payload).slice(0, 80)}: ${response.body}`);
      const problem = response.json();
      assert.equal(problem.type, 'urn:assessment-connect:problem:validation-failed');
      assert.ok(problem.requestId);
      for (const field of fields) {
        assert.ok(
          problem.errors.some((e: { name: string }) => e.name.startsWith(field)),
          `${JSON.stringify(payload).slice(0, 80)} names ${field}: ${response.body}`,
        );
      }
    }
    assert.equal(await count('candidates', t.instance), 0, 'nothing written by a refused invite');
  });

  it('answers 400, never 500, for a NUL or another control character in any field (found by fuzzing)', async () => {
    const t = await tenant();
    for (const [field, value] of [
      ['email', 'a\u0000b@example.com'],
      ['email', 'ab@exa\u0000mple.com'],
      ['firstName', 'A\u0000da'],
      ['lastName', '\u202e\u2028\u0000x'],
      ['lastName', 'Love\u0001lace'],
      ['assessments', ['alpha', 'x\u0000,y']],
      ['assessments', ['alpha\u0000']],
      ['assessments', 'alpha,\u0000beta'],
    ] as const) {
      const response = await invite(t, { ...person, assessments: ['alpha'], [field]: value }, '?sendInvite=false');
      assert.equal(response.statusCode, 400, `${field} ${JSON.stringify(value)}: ${response.body}`);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    }
    assert.equal(await count('candidates', t.instance), 0, 'nothing was written');
  });

  it('ignores fields it does not know', async () => {
    const t = await tenant();
    const response = await invite(t, { ...person, assessments: ['alpha'], phone: '+44 20 7946 0000' });
    assert.equal(response.statusCode, 200);
  });

  it('requires the instance header (400) and a granted instance (403)', async () => {
    const t = await tenant();
    const payload = { ...person, assessments: ['alpha'] };
    const missing = await ctx().request({ method: 'POST', url: '/v1/invite', headers: { 'x-api-key': t.key }, payload });
    assert.equal(missing.statusCode, 400);
    assert.equal(missing.json().errors[0].name, 'instance');
    const other = await ctx().instance();
    const forbidden = await invite(t, payload, '', { instance: other });
    assert.equal(forbidden.statusCode, 403);
  });

  it('answers 415 for a body that is not JSON, and 400 for malformed JSON', async () => {
    const t = await tenant();
    for (const [type, body] of [
      ['text/plain', 'email=a@b.co'],
      ['application/x-www-form-urlencoded', 'email=a%40b.co'],
      ['application/xml', '<invite/>'],
      ['multipart/form-data; boundary=x', '--x--'],
    ]) {
      const response = await ctx().request({ method: 'POST', url: '/v1/invite', headers: { 'x-api-key': t.key, instance: t.instance, 'content-type': type! }, payload: body });
      assert.equal(response.statusCode, 415, `${type}: ${response.body}`);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
    }
    const noType = await ctx().request({ method: 'POST', url: '/v1/invite', headers: { 'x-api-key': t.key, instance: t.instance }, payload: undefined });
    assert.equal(noType.statusCode, 415);
    const malformed = await ctx().request({
      method: 'POST',
      url: '/v1/invite',
      headers: { 'x-api-key': t.key, instance: t.instance, 'content-type': 'application/json' },
      payload: '{"email":',
    });
    assert.equal(malformed.statusCode, 400);
    assert.equal(malformed.json().detail, 'The request body is not valid JSON');
    const charset = await ctx().request({
      method: 'POST',
      url: '/v1/invite',
      headers: { 'x-api-key': t.key, instance: t.instance, 'content-type': 'application/json; charset=utf-8' },
      payload: JSON.stringify({ ...person, assessments: ['alpha'] }),
    });
    assert.equal(charset.statusCode, 200);
  });

  it('answers 413 for a body over 1 MB', async () => {
    const t = await tenant();
    const response = await invite(t, { ...person, assessments: ['alpha'], padding: 'x'.repeat(1024 * 1024) });
    assert.equal(response.statusCode, 413);
    assert.equal(response.json().status, 413);
  });

  it('accepts only true or false for sendInvite', async () => {
    const t = await tenant();
    for (const value of ['yes', '1', 'TRUE', '', 'true&sendInvite=false']) {
      const response = await invite(t, { ...person, assessments: ['alpha'] }, `?sendInvite=${value}`);
      assert.equal(response.statusCode, 400, `sendInvite=${value}: ${response.body}`);
      assert.equal(response.json().errors[0].name, 'sendInvite');
    }
    const off = await invite(t, { ...person, assessments: ['alpha'] }, '?sendInvite=false');
    assert.equal(off.statusCode, 200);
    assert.equal(off.json()[0].invitationStatus, undefined);
  });

  it('sendInvite=true hands the e-mail to the mailer and reports SENT', async () => {
    const t = await tenant();
    const before = readdirSync(ctx().mailDir).length;
    const response = await invite(t, { ...person, firstName: 'Ünïcødé <b>', assessments: ['alpha', 'beta'] }, '?sendInvite=true');
    assert.equal(response.statusCode, 200);
    const [result] = response.json();
    assert.equal(result.invitationStatus, 'SENT');
    const files = readdirSync(ctx().mailDir).filter((f) => f.endsWith('.eml'));
    assert.equal(files.length, before + 1);
    const eml = readFileSync(path.join(ctx().mailDir, files.sort().at(-1)!), 'utf8');
    assert.match(eml, /^To: [^]*<Ada\.Lovelace@example\.com>/im);
    assert.match(eml, /^Auto-Submitted: auto-generated/m);
    assert.match(eml, /^Message-ID: </m);
    assert.ok(eml.includes('Alpha (20 minutes)') && eml.includes('Beta (45 minutes)'));
    assert.ok(eml.replace(/=\r?\n/g, '').includes(result.link.split('#')[0]));
    const parsed = await simpleParser(eml);
    assert.ok(parsed.text?.includes('Hello Ünïcødé <b>,'), 'the plain part has the name as given');
    assert.ok(typeof parsed.html === 'string' && parsed.html.includes('Hello Ünïcødé &lt;b&gt;,'), 'the HTML part escapes it');
  });

  it('sendInvite=true reports FAILED when the mailer fails, and keeps the invitation', async () => {
    // A second app on the same store whose mailbox cannot be created: a path under a regular file.
    const t = await tenant();
    const app = await buildApp({
      config: { publicUrl: 'http://portal.test', adminToken: ADMIN_TOKEN, keyCacheMs: 0 },
      db: ctx().db,
      mailer: createFileMailer({ from: 'x@y.z', timeoutMs: 1000, mailDir: '/dev/null/mail' }),
    });
    try {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/invite?sendInvite=true',
        headers: { 'x-api-key': t.key, instance: t.instance },
        payload: { ...person, assessments: ['alpha'] },
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.json()[0].invitationStatus, 'FAILED');
      assert.equal(await count('invitations', t.instance), 1, 'the invitation is stored anyway');
      assert.equal(await count('invite_links', t.instance), 1);
    } finally {
      await app.close();
    }
  });

  it('makes one candidate from 12 simultaneous invites of one new e-mail', async () => {
    const t = await tenant();
    const responses = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        invite(t, { email: i % 2 ? 'SAME@example.com' : 'same@EXAMPLE.com', firstName: `F${i}`, lastName: 'L', assessments: i % 3 ? ['alpha', 'beta'] : ['beta', 'alpha'] }),
      ),
    );
    assert.deepEqual(
      responses.map((r) => r.statusCode),
      Array(12).fill(200),
    );
    assert.equal(new Set(responses.map((r) => r.json()[0].candidateId)).size, 1);
    assert.equal(await count('candidates', t.instance), 1);
    assert.equal(await count('invitations', t.instance), 2);
    assert.equal(await count('invite_links', t.instance), 12);
  });
});
