// Candidates' data rights on both stores: export (everything about the person), erasure (nothing
// personal left in any table or mail file, while the score record keeps its id and numbers), and
// the retention sweep with a clock the test moves.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { simpleParser } from 'mailparser';
import { describeEachStore, sampleAssessment, type TestContext } from '../../../test/harness.js';
import type { Queryable } from '../../db/database.js';
import { sweepRetention } from './service.js';

const DAY = 24 * 60 * 60 * 1000;

interface Person {
  email: string;
  firstName: string;
  lastName: string;
  address: string;
  agent: string;
}

function person(tag: string): Person {
  const unique = randomBytes(4).toString('hex');
  return {
    email: `Privacy.${tag}.${unique}@Example.com`,
    firstName: `Zephyrine${unique}`,
    lastName: `Quillfeather${unique}`,
    address: `203.0.113.${Number.parseInt(unique.slice(0, 2), 16) % 250}`,
    agent: `PrivacyTestBrowser/${unique}`,
  };
}

/** Needles that must not be found anywhere after the erasure (the address only when it is unique to the person). */
const needles = (p: Person) => [p.email.toLowerCase(), p.firstName.toLowerCase(), p.lastName.toLowerCase(), p.agent.toLowerCase()];

/** Where the store holds any of the needles: every table cast to text, and every text/jsonb column. */
async function foundInStore(db: Queryable, values: string[]): Promise<string[]> {
  const found: string[] = [];
  const { rows: tables } = await db.query<{ name: string }>(
    `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`,
  );
  assert.ok(tables.length >= 10, `the search sees the tables: ${tables.map((t) => t.name).join(', ')}`);
  const { rows: columns } = await db.query<{ table: string; column: string }>(
    `SELECT c.table_name AS table, c.column_name AS column FROM information_schema.columns c
       JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
      WHERE c.table_schema = current_schema() AND c.data_type IN ('text', 'jsonb', 'json', 'character varying', 'character', 'ARRAY') ORDER BY 1, 2`,
  );
  for (const value of values) {
    for (const { name } of tables) {
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${name}" AS r WHERE strpos(lower(r::text), $1) > 0`, [value]);
      if (rows[0]!.n > 0) found.push(`${name} (row): ${value}`);
    }
    for (const { table, column } of columns) {
      const { rows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${table}" WHERE strpos(lower("${column}"::text), $1) > 0`, [value]);
      if (rows[0]!.n > 0) found.push(`${table}.${column}: ${value}`);
    }
  }
  return found;
}

/** Mail files (raw, and decoded: headers, text and HTML) that hold any of the needles. */
async function foundInMail(mailDir: string, values: string[]): Promise<string[]> {
  const found: string[] = [];
  const files = (readdirSync(mailDir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[]).filter((f) => f.isFile());
  for (const file of files) {
    const full = path.join(file.parentPath ?? mailDir, file.name);
    const raw = readFileSync(full);
    const mail = await simpleParser(raw);
    const to = mail.to ? (Array.isArray(mail.to) ? mail.to.map((t) => t.text).join(' ') : mail.to.text) : '';
    const text = `${raw.toString('utf8')}\n${to}\n${mail.subject ?? ''}\n${mail.text ?? ''}\n${mail.html || ''}`.toLowerCase();
    for (const value of values) if (text.includes(value)) found.push(`${file.name}: ${value}`);
  }
  return found;
}

describeEachStore(
  "candidates' data rights",
  (ctx) => {
    async function tenant(options: { retentionDays?: number } = {}) {
      const instance = await ctx().instance('priv');
      await ctx().publish(instance, sampleAssessment('alpha', { name: 'Alpha', typing: true }));
      await ctx().publish(instance, sampleAssessment('beta', { name: 'Beta' }));
      if (options.retentionDays !== undefined) {
        const set = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { retentionDays: options.retentionDays } });
        assert.equal(set.statusCode, 200, set.body);
      }
      return { instance, key: await ctx().key([instance]) };
    }

    /** Invites the person (e-mail sent, with an Idempotency-Key) and has them take `alpha` in the portal; `submit` completes it. */
    async function takes(c: TestContext, t: { instance: string; key: string }, p: Person, options: { assessments?: string[]; submit?: boolean } = {}) {
      const assessments = options.assessments ?? ['alpha'];
      const invited = await c.request({
        method: 'POST',
        url: '/v1/invite?sendInvite=true',
        headers: { 'x-api-key': t.key, instance: t.instance, 'idempotency-key': `privacy-${p.firstName}` },
        payload: { email: p.email, firstName: p.firstName, lastName: p.lastName, assessments },
      });
      assert.equal(invited.statusCode, 200, invited.body);
      const [invite] = invited.json() as { candidateId: string; link: string }[];
      const token = invite!.link.split('sessionToken=')[1];
      const opened = await c.request({ method: 'POST', url: '/portal/api/session', payload: { token }, remoteAddress: p.address, headers: { 'user-agent': p.agent } });
      assert.equal(opened.statusCode, 200, opened.body);
      const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
      const page = await c.request({ method: 'GET', url: '/portal/a/alpha', headers: { cookie, 'user-agent': p.agent }, remoteAddress: p.address });
      const csrf = /name="csrf-token" content="([^"]+)"/.exec(page.body)![1]!;
      const headers = { cookie, 'x-csrf-token': csrf, 'user-agent': p.agent };
      const form = (url: string, fields: Record<string, string> = {}) =>
        c.request({
          method: 'POST',
          url,
          remoteAddress: p.address,
          headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
          payload: new URLSearchParams({ _csrf: csrf, ...fields }).toString(),
        });
      const json = (method: 'POST' | 'PUT', url: string, payload?: object) => c.request({ method, url, remoteAddress: p.address, headers, payload });
      assert.equal((await form('/portal/a/alpha/start')).statusCode, 303);
      assert.equal((await json('PUT', '/portal/api/a/alpha/answers/q3', { value: '1250' })).statusCode, 204);
      assert.equal((await json('PUT', '/portal/api/a/alpha/answers/q4', { value: `I am ${p.firstName} ${p.lastName}, write to ${p.email}` })).statusCode, 204);
      assert.equal((await json('POST', '/portal/api/a/alpha/signals', { kind: 'paste', detail: `pasted ${p.lastName}` })).statusCode, 204);
      assert.equal((await json('POST', '/portal/api/a/alpha/typing/start')).statusCode, 204);
      const typed = `${p.firstName} The quick brown fox`;
      const typing = await json('POST', '/portal/api/a/alpha/typing', { typed, intervals: Array.from({ length: typed.length }, () => 150) });
      assert.equal(typing.statusCode, 200, typing.body);
      if (options.submit) assert.equal((await form('/portal/a/alpha/submit')).statusCode, 303);
      return invite!.candidateId;
    }

    const admin = (method: 'POST' | 'GET', url: string, payload?: object) => ctx().request({ method, url: `/admin/v1${url}`, payload });
    const score = async (key: string, id: string) =>
      (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${id}`, headers: { 'x-api-key': key } })).json() as Record<string, unknown>[];

    it('exports everything stored about a candidate, by e-mail (any case) or id', async () => {
      const t = await tenant();
      const p = person('export');
      const id = await takes(ctx(), t, p, { assessments: ['alpha', 'beta'] });
      const byEmail = await admin('POST', `/instances/${t.instance}/candidates/export`, { email: p.email.toUpperCase() });
      assert.equal(byEmail.statusCode, 200, byEmail.body);
      const doc = byEmail.json();
      assert.equal(doc.id, id);
      assert.deepEqual(
        { ...doc.candidate, createdAt: undefined, updatedAt: undefined },
        { id, email: p.email, firstName: p.firstName, lastName: p.lastName, createdAt: undefined, updatedAt: undefined, erasedAt: null },
      );
      assert.deepEqual(
        doc.invitations.map((i: { assessmentId: string }) => i.assessmentId),
        ['alpha', 'beta'],
      );
      assert.equal(doc.inviteLinks.length, 1);
      assert.equal(doc.portalSessions.length, 1);
      assert.equal(doc.attempts.length, 1);
      const [attempt] = doc.attempts;
      assert.equal(attempt.firstAddress, p.address);
      assert.equal(attempt.firstAgent, p.agent);
      assert.equal(attempt.typingText, `${p.firstName} The quick brown fox`);
      assert.deepEqual(
        attempt.answers.map((a: { questionId: string }) => a.questionId),
        ['q3', 'q4'],
      );
      assert.match(attempt.answers[1].value, new RegExp(p.lastName));
      assert.ok(attempt.proctoringSignals.some((s: { kind: string; detail: string }) => s.kind === 'paste' && s.detail === `pasted ${p.lastName}`));
      assert.deepEqual(
        doc.deliveries.map((d: { recipient: string; status: string }) => [d.recipient, d.status]),
        [[p.email, 'SENT']],
      );
      const byId = (await admin('POST', `/instances/${t.instance}/candidates/export`, { candidateId: id })).json();
      assert.ok(
        byId.audit.some((a: { action: string; target: string }) => /^candidate\.export$/.test(a.action) && a.target === `${t.instance}/${id}`),
        'the first export is an operator action that concerns them',
      );
      assert.deepEqual({ ...byId, exportedAt: undefined, audit: undefined }, { ...doc, exportedAt: undefined, audit: undefined });
    });

    it('erases a candidate from every table (the idempotency store included) and the mailbox, the score record keeps the id and numbers', async () => {
      const t = await tenant();
      const gone = person('gone');
      const kept = person('kept');
      const id = await takes(ctx(), t, gone, { submit: true });
      const keptId = await takes(ctx(), t, kept, { submit: true });
      const before = await score(t.key, id);
      // The search finds the person before: it would find anything left behind.
      for (const value of needles(gone)) {
        assert.ok((await foundInStore(ctx().db, [value])).length > 0, `found ${value} before`);
      }
      assert.ok((await foundInMail(ctx().mailDir, [gone.email.toLowerCase(), gone.firstName.toLowerCase()])).length >= 2, 'the mailbox holds their e-mail');
      assert.ok(
        (await ctx().db.query('SELECT 1 FROM idempotency_keys WHERE instance_id = (SELECT instance_id FROM candidates WHERE id = $1)', [id])).rows.length >= 1,
        'an invite answer is stored for retries',
      );

      const erased = await admin('POST', `/instances/${t.instance}/candidates/erase`, { email: gone.email });
      assert.equal(erased.statusCode, 200, erased.body);
      assert.deepEqual({ ...(erased.json() as object), erasedAt: undefined }, { id, instance: t.instance, erased: true, erasedAt: undefined, mailFilesDeleted: 1 });

      assert.deepEqual(await foundInStore(ctx().db, needles(gone)), [], 'nothing of theirs in any table');
      // Their attempts (found by the id the score records keep), not the address: another test's
      // person may have drawn the same one of the 250 test addresses.
      const left = await ctx().db.query(
        'SELECT t.first_address FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE i.candidate_id = $1 AND (t.first_address IS NOT NULL OR t.first_agent IS NOT NULL)',
        [id],
      );
      assert.deepEqual(left.rows, [], 'no client address or browser');
      assert.deepEqual(await foundInMail(ctx().mailDir, needles(gone)), [], 'no e-mail to them');

      // The ATS still reads the record: same id, same numbers, nothing personal.
      const after = await score(t.key, id);
      assert.deepEqual(after, before);
      assert.doesNotMatch(JSON.stringify(after), new RegExp(`${gone.firstName}|${gone.lastName}|${gone.email.replace(/\./g, '\\.')}`, 'i'));
      assert.equal(after[0]!.candidateId, id);

      // The other candidate is untouched.
      assert.ok((await foundInStore(ctx().db, [kept.email.toLowerCase()])).length > 0);
      assert.ok((await foundInMail(ctx().mailDir, [kept.email.toLowerCase()])).length > 0);
      assert.equal((await admin('POST', `/instances/${t.instance}/candidates/export`, { candidateId: keptId })).json().attempts[0].answers.length, 2);

      // Audited, without the address or name.
      const audit = (await admin('GET', '/audit?limit=20')).json() as { action: string; target: string; status: number }[];
      const entry = audit.find((a) => /^candidate\.erase$/.test(a.action) && a.status === 200);
      assert.equal(entry?.target, `${t.instance}/${id}`);

      // Idempotent: again by id is a no-op that says so; by e-mail the address is no longer known.
      const again = await admin('POST', `/instances/${t.instance}/candidates/erase`, { candidateId: id });
      assert.equal(again.statusCode, 200);
      assert.equal(again.json().erased, false);
      assert.equal(again.json().erasedAt, erased.json().erasedAt);
      const byEmail = await admin('POST', `/instances/${t.instance}/candidates/erase`, { email: gone.email });
      assert.equal(byEmail.statusCode, 404);
      assert.match(byEmail.json().detail, /erased/);
      const exported = (await admin('POST', `/instances/${t.instance}/candidates/export`, { candidateId: id })).json();
      assert.deepEqual([exported.candidate.email, exported.candidate.firstName, exported.candidate.lastName], [null, null, null]);
      assert.deepEqual([exported.attempts[0].answers, exported.attempts[0].proctoringSignals, exported.deliveries, exported.inviteLinks], [[], [], [], []]);

      // Invited again later, the same address is a new candidate.
      const reinvited = await ctx().request({
        method: 'POST',
        url: '/v1/invite',
        headers: { 'x-api-key': t.key, instance: t.instance },
        payload: { email: gone.email, firstName: gone.firstName, lastName: gone.lastName, assessments: ['beta'] },
      });
      assert.equal(reinvited.statusCode, 200, reinvited.body);
      assert.notEqual(reinvited.json()[0].candidateId, id);
    });

    it('refuses bad selectors with a problem and changes nothing; unknown candidates are 404', async () => {
      const t = await tenant();
      const p = person('bad');
      const id = await takes(ctx(), t, p);
      const url = `/instances/${t.instance}/candidates/erase`;
      for (const payload of [{}, { email: p.email, candidateId: id }, { email: 'not an address' }, { candidateId: 'nope' }, { candidateId: id, extra: 1 }]) {
        for (const action of ['erase', 'export']) {
          const response = await admin('POST', `/instances/${t.instance}/candidates/${action}`, payload);
          assert.equal(response.statusCode, 400, `${action} ${JSON.stringify(payload)}: ${response.body}`);
          assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
          assert.equal(response.json().type, 'urn:assessment-connect:problem:validation-failed');
        }
      }
      for (const [where, payload] of [
        [url, { email: 'nobody@example.com' }],
        [url, { candidateId: '00000000-0000-4000-8000-000000000000' }],
        ['/instances/no-such-instance/candidates/erase', { candidateId: id }],
      ] as const) {
        const response = await admin('POST', where, payload);
        assert.equal(response.statusCode, 404, response.body);
        assert.equal(response.json().type, 'urn:assessment-connect:problem:not-found');
      }
      // A candidate of another instance is not found through this one.
      const other = await tenant();
      assert.equal((await admin('POST', `/instances/${other.instance}/candidates/erase`, { candidateId: id })).statusCode, 404);
      assert.equal((await admin('POST', `/instances/${t.instance}/candidates/export`, { candidateId: id })).json().candidate.email, p.email, 'nothing changed');
      for (const retentionDays of [0, 3651, 'ten', 1.5]) {
        const response = await admin('POST', '/instances', { name: `r-${randomBytes(3).toString('hex')}`, retentionDays } as object);
        assert.equal(response.statusCode, 400, `${retentionDays}: ${response.body}`);
      }
    });

    it('erases completed candidates once their instance retention period has passed, as the sweep moves the clock', async () => {
      const t = await tenant({ retentionDays: 30 });
      const untimed = await tenant();
      const done = person('done');
      const open = person('open');
      const elsewhere = person('elsewhere');
      const doneId = await takes(ctx(), t, done, { submit: true });
      const openId = await takes(ctx(), t, open, { assessments: ['alpha', 'beta'], submit: true });
      const elsewhereId = await takes(ctx(), untimed, elsewhere, { submit: true });
      const listed = (await admin('GET', '/instances')).json() as { name: string; retentionDays: number | null }[];
      assert.equal(listed.find((i) => i.name === t.instance)?.retentionDays, 30);
      assert.equal(listed.find((i) => i.name === untimed.instance)?.retentionDays, null);

      const deps = { db: ctx().db, mailDir: ctx().mailDir };
      const at = (days: number) => () => new Date(Date.now() + days * DAY);
      assert.equal(await sweepRetention({ ...deps, now: at(29) }), 0, 'within the period');
      assert.equal(await sweepRetention({ ...deps, now: at(31) }), 1);
      const email = async (instance: string, id: string) => (await admin('POST', `/instances/${instance}/candidates/export`, { candidateId: id })).json().candidate.email;
      assert.equal(await email(t.instance, doneId), null, 'completed and past the period: erased');
      assert.equal(await email(t.instance, openId), open.email, 'one invitation not completed: kept');
      assert.equal(await email(untimed.instance, elsewhereId), elsewhere.email, 'no retention period: kept');
      assert.deepEqual(await foundInStore(ctx().db, needles(done)), []);
      assert.deepEqual(await foundInMail(ctx().mailDir, needles(done)), []);
      assert.equal((await score(t.key, doneId))[0]!.assessmentStatus, 'COMPLETED', 'the score record stays');
      const { rows } = await ctx().db.query<{ actor: string }>(`SELECT actor FROM audit_log WHERE action = 'candidate.erase' AND target = $1`, [`${t.instance}/${doneId}`]);
      assert.deepEqual(rows, [{ actor: 'retention-sweep' }]);
      assert.equal(await sweepRetention({ ...deps, now: at(31) }), 0, 'nothing left to erase');

      // Turned off: nothing more is erased, however late.
      assert.equal((await admin('POST', '/instances', { name: `off-${randomBytes(3).toString('hex')}`, retentionDays: null })).statusCode, 201);
      const off = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${t.instance}`, payload: { retentionDays: null } });
      assert.equal(off.json().retentionDays, null);
      await ctx().db.query(
        `UPDATE invitations SET assessment_status = 'COMPLETED', finished_at = coalesce(finished_at, now()), started_at = coalesce(started_at, now()) WHERE candidate_id = $1`,
        [openId],
      );
      assert.equal(await sweepRetention({ ...deps, now: at(400) }), 0);
      assert.equal(await email(t.instance, openId), open.email);
    });

    it('also erases candidates whose invitations expired or were withdrawn, counted from when they closed', async () => {
      const t = await tenant({ retentionDays: 30 });
      const invite = async (p: Person) => {
        const invited = await ctx().request({
          method: 'POST',
          url: '/v1/invite',
          headers: { 'x-api-key': t.key, instance: t.instance },
          payload: { email: p.email, firstName: p.firstName, lastName: p.lastName, assessments: ['alpha'] },
        });
        assert.equal(invited.statusCode, 200, invited.body);
        return (invited.json() as { candidateId: string }[])[0]!.candidateId;
      };
      const lapsed = person('lapsed');
      const withdrawn = person('withdrawn');
      const lapsedId = await invite(lapsed);
      const withdrawnId = await invite(withdrawn);
      const cancelled = await ctx().request({ method: 'POST', url: `/v1/candidates/${withdrawnId}/invitations/alpha/cancel`, headers: { 'x-api-key': t.key } });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      const deps = { db: ctx().db, mailDir: ctx().mailDir };
      const at = (days: number) => () => new Date(Date.now() + days * DAY);
      const email = async (id: string) => (await admin('POST', `/instances/${t.instance}/candidates/export`, { candidateId: id })).json().candidate.email;
      // Withdrawn today: due 30 days on. Expiring after the default 14 days: due 44 days on.
      assert.equal(await sweepRetention({ ...deps, now: at(29) }), 0, 'within the period');
      assert.equal(await sweepRetention({ ...deps, now: at(31) }), 1);
      assert.equal(await email(withdrawnId), null, 'withdrawn and past the period: erased');
      assert.equal(await email(lapsedId), lapsed.email, 'expires at day 14: kept until day 44');
      assert.equal(await sweepRetention({ ...deps, now: at(43) }), 0);
      assert.equal(await sweepRetention({ ...deps, now: at(45) }), 1);
      assert.equal(await email(lapsedId), null, 'expired unstarted and past the period: erased');
      assert.deepEqual(await foundInStore(ctx().db, [...needles(lapsed), ...needles(withdrawn)]), []);
    });

    it('lets several sweeps run at once, each candidate erased once', async () => {
      const t = await tenant({ retentionDays: 1 });
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) ids.push(await takes(ctx(), t, person(`many${i}`), { submit: true }));
      const deps = { db: ctx().db, mailDir: ctx().mailDir, now: () => new Date(Date.now() + 2 * DAY) };
      const counts = await Promise.all([sweepRetention(deps), sweepRetention(deps), sweepRetention(deps)]);
      const { rows } = await ctx().db.query<{ target: string }>(`SELECT target FROM audit_log WHERE action = 'candidate.erase' AND target LIKE $1 ORDER BY target`, [
        `${t.instance}/%`,
      ]);
      assert.deepEqual(
        rows.map((r) => r.target),
        ids.map((id) => `${t.instance}/${id}`).sort(),
        'one audit entry per candidate',
      );
      assert.equal(
        counts.reduce((a, b) => a + b, 0),
        4,
      );
    });
  },
  { devMail: true },
);
