// Commands and the invitation's state machine, on both stores: a command is all or nothing (with
// its audit entry and events), inviting again cannot reopen a completed assessment, extend never
// shortens, a withdrawn attempt is never scored, and the documented table is the machine's.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { runCommand, type Actor } from '../src/domain/command.js';
import type { DomainError } from '../src/domain/errors.js';
import { changeTenantSettings, createTenant, setTenantLogo } from '../src/modules/tenants/commands.js';
import { addUser, resetPassword, setUserDisabled } from '../src/modules/users/service.js';
import { findInstanceByName, type InstanceSettings } from '../src/modules/tenants/repository.js';
import { closeWithdrawn, supersedeAttempt } from '../src/modules/attempts/repository.js';
import { cancelInvitation, expiryJob } from '../src/modules/invitations/lifecycle.js';
import { decide, machineTable, STATES } from '../src/modules/invitations/machine.js';
import { describeEachStore, QUICK_ASSESSMENT, sampleAssessment, type TestContext } from './harness.js';
import { invite, openPortal, type Invited } from './support/portal.js';

it('the table of docs/integration.md is the state machine', () => {
  const docs = readFileSync(path.resolve(import.meta.dirname, '..', 'docs', 'integration.md'), 'utf8');
  assert.ok(docs.includes(machineTable()), `docs/integration.md must hold the table made by machineTable():\n${machineTable()}`);
});

it('every state answers every transition', () => {
  for (const state of STATES) {
    for (const t of ['invite', 'start', 'submit', 'expire', 'cancel', 'extend', 'remind', 'retake'] as const) {
      for (const started of [false, true]) assert.ok(decide(state, t, { started }), `${state} × ${t}`);
    }
  }
});

async function take(ctx: TestContext, instance: string, key: string, email: string, assessments: string[], query = '') {
  const result = await invite(ctx, { instance, key }, { email, firstName: 'Com', lastName: 'Mand' }, assessments, { query });
  const { form } = await openPortal(ctx, result.link, assessments[0]!);
  return { ...(result as Invited & { invitationStatus?: string; skipped?: { assessmentId: string; status: string }[] }), form };
}

const attempts = { attempts: { closeWithdrawn, supersede: supersedeAttempt } };

describeEachStore('commands', (ctx) => {
  let instance: string;
  let key: string;
  const count = async (sql: string, params: unknown[]) => (await ctx().db.query<{ n: number }>(sql, params)).rows[0]!.n;

  it('a command that fails half-way leaves no change, no audit entry and no event', async () => {
    instance = await ctx().instance('commands');
    assert.equal((await ctx().publish(instance, QUICK_ASSESSMENT)).statusCode, 201);
    assert.equal((await ctx().publish(instance, sampleAssessment('alpha'))).statusCode, 201);
    key = await ctx().key([instance], { rateLimit: 100000 });
    const c = await take(ctx(), instance, key, 'half@commands.example', ['quick']);
    const { rows } = await ctx().db.query<{ id: string }>('SELECT id FROM instances WHERE name = $1', [instance]);
    const events = () => count(`SELECT count(*)::int AS n FROM outbox_events WHERE body LIKE $1`, [`%${c.candidateId}%`]);
    const audits = () => count(`SELECT count(*)::int AS n FROM audit_log WHERE target LIKE $1`, [`${c.candidateId}%`]);
    const [eventsBefore, auditsBefore] = [await events(), await audits()];
    const ref = { instanceIds: [rows[0]!.id], candidateId: c.candidateId, assessmentId: 'quick' };
    const request = { actor: { kind: 'api-key' as const, id: 'test' }, requestId: 'half-way', now: new Date() };
    await assert.rejects(
      runCommand(ctx().db, request, async (cmd) => {
        await cancelInvitation(cmd, attempts, ref);
        // Everything the cancel wrote is there inside the transaction …
        assert.equal((await cmd.tx.query<{ n: number }>('SELECT count(*)::int AS n FROM audit_log WHERE request_id = $1', ['half-way'])).rows[0]!.n, 1);
        throw new Error('the next step fails');
      }),
      /the next step fails/,
    );
    // … and nothing of it outside.
    assert.equal(await count('SELECT count(*)::int AS n FROM invitations WHERE candidate_id = $1 AND cancelled_at IS NOT NULL', [c.candidateId]), 0);
    assert.equal(await events(), eventsBefore, 'no event');
    assert.equal(await audits(), auditsBefore, 'no audit entry');
    // The same command on its own commits all three.
    await runCommand(ctx().db, request, (cmd) => cancelInvitation(cmd, attempts, ref));
    assert.equal(await count('SELECT count(*)::int AS n FROM invitations WHERE candidate_id = $1 AND cancelled_at IS NOT NULL', [c.candidateId]), 1);
    assert.equal(await events(), eventsBefore + 1);
    assert.equal(await audits(), auditsBefore + 1);
  });

  it("audits a client's cancel with its key, inside the change", async () => {
    const c = await take(ctx(), instance, key, 'audited@commands.example', ['quick']);
    assert.equal(
      (await ctx().request({ method: 'POST', url: `/v1/candidates/${c.candidateId}/invitations/quick/cancel`, headers: { 'x-api-key': key, 'x-request-id': 'cancel-audit-1' } }))
        .statusCode,
      200,
    );
    const { rows } = await ctx().db.query<{ actor: string; action: string; target: string }>('SELECT actor, action, target FROM audit_log WHERE request_id = $1', [
      'cancel-audit-1',
    ]);
    assert.equal(rows.length, 1);
    assert.match(rows[0]!.actor, /^key:/);
    assert.deepEqual([rows[0]!.action, rows[0]!.target], ['invitation.cancel', `${c.candidateId}/quick`]);
  });

  it('an erasure is audited inside its transaction: when the audit entry cannot be written, nothing is erased', async () => {
    const c = await take(ctx(), instance, key, 'erased@commands.example', ['quick']);
    const erase = (requestId: string) =>
      ctx().request({
        method: 'POST',
        url: `/admin/v1/instances/${instance}/candidates/erase`,
        headers: { 'x-request-id': requestId },
        payload: { candidateId: c.candidateId },
      });
    // The audit log refuses this erasure's entry (a trigger of the real store, dropped below).
    await ctx().db.query(`CREATE FUNCTION refuse_erase_audit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.action = 'candidate.erase' THEN RAISE EXCEPTION 'audit log unavailable'; END IF; RETURN NEW; END $$`);
    await ctx().db.query('CREATE TRIGGER refuse_erase_audit BEFORE INSERT ON audit_log FOR EACH ROW EXECUTE FUNCTION refuse_erase_audit()');
    try {
      assert.equal((await erase('erase-unaudited')).statusCode, 500);
    } finally {
      await ctx().db.query('DROP TRIGGER refuse_erase_audit ON audit_log');
      await ctx().db.query('DROP FUNCTION refuse_erase_audit()');
    }
    assert.equal(await count('SELECT count(*)::int AS n FROM candidates WHERE id = $1 AND email IS NOT NULL AND erased_at IS NULL', [c.candidateId]), 1, 'not erased');
    assert.equal(await count('SELECT count(*)::int AS n FROM audit_log WHERE request_id = $1', ['erase-unaudited']), 0);

    const done = await erase('erase-audited');
    assert.equal(done.statusCode, 200, done.body);
    const { rows } = await ctx().db.query<{ actor: string; action: string; target: string; status: number }>(
      'SELECT actor, action, target, status FROM audit_log WHERE request_id = $1',
      ['erase-audited'],
    );
    assert.deepEqual(rows, [{ actor: 'admin-token', action: 'candidate.erase', target: `${instance}/${c.candidateId}`, status: 200 }], 'one entry, by the command');
  });

  it('inviting again to a completed assessment sends no e-mail, fires no event, and says so', async () => {
    const c = await take(ctx(), instance, key, 'done@commands.example', ['quick']);
    assert.equal((await c.form('/portal/a/quick/start')).statusCode, 303);
    assert.equal((await c.form('/portal/a/quick/q/1', { value: '1' })).statusCode, 303);
    assert.equal((await c.form('/portal/a/quick/submit')).statusCode, 303);
    const mails = () => readdirSync(ctx().mailDir).filter((f) => f.endsWith('.eml')).length;
    const events = () => count(`SELECT count(*)::int AS n FROM outbox_events WHERE body LIKE $1`, [`%${c.candidateId}%`]);
    const [mailsBefore, eventsBefore] = [mails(), await events()];
    const again = await ctx().request({
      method: 'POST',
      url: '/v1/invite?sendInvite=true',
      headers: { 'x-api-key': key, instance },
      payload: { email: 'done@commands.example', firstName: 'Com', lastName: 'Mand', assessments: ['quick'] },
    });
    assert.equal(again.statusCode, 200, again.body);
    const [result] = again.json();
    assert.equal(result.invitationStatus, undefined, 'nothing was e-mailed');
    assert.deepEqual(
      result.skipped.map((s: { assessmentId: string; status: string }) => [s.assessmentId, s.status]),
      [['quick', 'COMPLETED']],
    );
    assert.equal(mails(), mailsBefore);
    assert.equal(await events(), eventsBefore);

    // With another assessment beside it, that one is invited and e-mailed, naming only it.
    const both = await ctx().request({
      method: 'POST',
      url: '/v1/invite?sendInvite=true',
      headers: { 'x-api-key': key, instance },
      payload: { email: 'done@commands.example', firstName: 'Com', lastName: 'Mand', assessments: ['quick', 'alpha'] },
    });
    const [mixed] = both.json();
    assert.equal(mixed.invitationStatus, 'SENT');
    assert.deepEqual(
      mixed.skipped.map((s: { assessmentId: string }) => s.assessmentId),
      ['quick'],
    );
    assert.equal(mails(), mailsBefore + 1);
    const eml = readFileSync(
      path.join(
        ctx().mailDir,
        readdirSync(ctx().mailDir)
          .filter((f) => f.endsWith('.eml'))
          .sort()
          .at(-1)!,
      ),
      'utf8',
    );
    assert.ok(eml.includes('Sample assessment') && !eml.includes('Quick check'), 'the e-mail names only what can be taken');
  });

  it('extend never moves expiresAt earlier', async () => {
    const c = await take(ctx(), instance, key, 'later@commands.example', ['quick']);
    const api = (url: string, payload?: object) => ctx().request({ method: 'POST', url, headers: { 'x-api-key': key }, payload });
    const long = await api(`/v1/candidates/${c.candidateId}/invitations/quick/extend`, { days: 60 });
    assert.equal(long.statusCode, 200, long.body);
    const short = await api(`/v1/candidates/${c.candidateId}/invitations/quick/extend`, { days: 7 });
    assert.equal(short.statusCode, 200, short.body);
    assert.equal(short.json().expiresAt, long.json().expiresAt, 'seven days would have shortened it: it keeps the later time');
  });

  it('a withdrawn attempt leaves the review queue and is never scored (409, not 500)', async () => {
    const c = await take(ctx(), instance, key, 'withdrawn@commands.example', ['alpha']);
    assert.equal((await c.form('/portal/a/alpha/start')).statusCode, 303);
    const { rows } = await ctx().db.query<{ id: string }>('SELECT a.id FROM attempts a JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1', [c.candidateId]);
    const attemptId = rows[0]!.id;
    await ctx().db.query(`INSERT INTO answers (attempt_id, question_id, value) VALUES ($1, 'q4', '"I helped a customer."')`, [attemptId]);
    assert.equal((await ctx().request({ method: 'POST', url: `/v1/candidates/${c.candidateId}/invitations/alpha/cancel`, headers: { 'x-api-key': key } })).statusCode, 200);
    const queue = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/reviews` })).json() as { attemptId: string }[];
    assert.ok(!queue.some((r) => r.attemptId === attemptId), 'not in the queue');
    const scored = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/reviews`, payload: { attemptId, questionId: 'q4', score: 80 } });
    assert.equal(scored.statusCode, 409, scored.body);
  });

  it('the expiry job comes back at once while a backlog remains, instead of 200 a minute', async () => {
    const backlog = await ctx().instance('backlog');
    assert.equal((await ctx().publish(backlog, QUICK_ASSESSMENT)).statusCode, 201);
    // 250 invitations whose time runs out in an hour (made directly: a bulk invite's aftermath); the
    // job's clock is two hours ahead, so the app's own expiry job (on the real clock) leaves them alone.
    await ctx().db.query(
      `WITH n AS (SELECT id FROM instances WHERE name = $1), s AS (SELECT a.id FROM assessments a, n WHERE a.instance_id = n.id),
            c AS (INSERT INTO candidates (instance_id, email, first_name, last_name)
                  SELECT n.id, 'late-' || g || '@backlog.example', 'Late', 'Comer' FROM n, generate_series(1, 250) AS g RETURNING id, instance_id)
       INSERT INTO invitations (instance_id, candidate_id, assessment_id, expires_at) SELECT c.instance_id, c.id, s.id, now() + interval '1 hour' FROM c, s`,
      [backlog],
    );
    // The app's read-model job fills the new rows' records meanwhile, locking them as it goes, and
    // the expiry job skips locked rows (SKIP LOCKED, to pick them up on its next run): the counts
    // below are exact once the fill is done.
    for (let i = 0; i < 200; i++) {
      const unfilled = await count(`SELECT count(*)::int AS n FROM invitations i JOIN instances n ON n.id = i.instance_id WHERE n.name = $1 AND i.record IS NULL`, [backlog]);
      if (unfilled === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    const later = () => new Date(Date.now() + 2 * 3600_000);
    const job = expiryJob(ctx().db, 60_000, later);
    const pending = () => count(`SELECT count(*)::int AS n FROM invitations i JOIN instances n ON n.id = i.instance_id WHERE n.name = $1 AND i.expired_at IS NULL`, [backlog]);
    assert.equal(await job.run(later()), 200);
    assert.equal(job.soonerMs?.(), 0, 'a full batch: the next run at once');
    assert.equal(await pending(), 50);
    assert.equal(await job.run(later()), 50);
    assert.equal(job.soonerMs?.(), undefined, 'the backlog is gone: back to its interval');
    assert.equal(await pending(), 0);
  });
});

describeEachStore('instance commands', (ctx) => {
  const owner = { kind: 'user' as const, id: 'u1', email: 'owner@example.com', role: 'owner' as const };
  const manager = { kind: 'user' as const, id: 'u2', email: 'manager@example.com', role: 'manager' as const };
  const as = (actor: Actor) => ({ actor, requestId: 'test', now: new Date('2026-11-25T12:00:00Z') });
  const audited = async (target: string) =>
    (await ctx().db.query<{ action: string }>(`SELECT action FROM audit_log WHERE target = $1 ORDER BY id`, [target])).rows.map((r) => r.action);

  it('the operator creates an instance once, normalised and audited; nobody else creates one', async () => {
    const name = `tenant-${process.pid}`;
    const made = await runCommand(ctx().db, as({ kind: 'admin-token' }), (c) =>
      createTenant(c, { name, settings: { portalUrl: 'https://jobs.example//', accentColor: '#0b57d0' } }),
    );
    assert.equal(made.portalUrl, 'https://jobs.example');
    assert.equal(made.accentColor, '#0B57D0');
    await assert.rejects(
      runCommand(ctx().db, as({ kind: 'admin-token' }), (c) => createTenant(c, { name, settings: {} })),
      (e: DomainError) => e.code === 'conflict',
    );
    await assert.rejects(
      runCommand(ctx().db, as(owner), (c) => createTenant(c, { name: `${name}-x`, settings: {} })),
      (e: DomainError) => e.code === 'forbidden',
    );
    assert.deepEqual(await audited(name), ['instance.create']);
  });

  it('who may change what: managers not the addresses, owners not the operator’s bounds; an unchanged value is no change', async () => {
    const name = `rules-${process.pid}`;
    await runCommand(ctx().db, as({ kind: 'admin-token' }), (c) => createTenant(c, { name, settings: { portalUrl: 'https://a.example', mailFromAddress: 'a@a.example' } }));
    const change = (actor: Actor, changes: InstanceSettings) => runCommand(ctx().db, as(actor), (c) => changeTenantSettings(c, { instance: name, changes }));
    await assert.rejects(change(manager, { portalUrl: 'https://b.example', inviteTtlDays: 3 }), /Only the operator or an owner may change the portal URL/);
    await assert.rejects(change(manager, { mailFromAddress: null }), /the sender address/);
    await assert.rejects(change(owner, { maxWebhookEndpoints: 500 }), /Only the operator may change the number of webhook endpoints/);
    await assert.rejects(change(owner, { requireTwoFactor: true }), (e: DomainError) => e.code === 'forbidden');
    // Refused changes changed nothing, the allowed ones in the same call included.
    let now = await findInstanceByName(ctx().db, name);
    assert.equal(now!.inviteTtlDays, 14);
    // A form sends every field: the same addresses from a manager are no change.
    await change(manager, { portalUrl: 'https://a.example/', mailFromAddress: 'a@a.example', inviteTtlDays: 3 });
    await change(owner, { portalUrl: 'https://c.example' });
    await change({ kind: 'admin-token' }, { maxWebhookEndpoints: 500, requireTwoFactor: true });
    now = await findInstanceByName(ctx().db, name);
    assert.deepEqual([now!.inviteTtlDays, now!.portalUrl, now!.maxWebhookEndpoints, now!.requireTwoFactor], [3, 'https://c.example', 500, true]);
    await assert.rejects(change(owner, { displayName: '  ', accentColor: '#ffff00' }), (e: DomainError) => e.code === 'invalid' && e.fields?.length === 2);
    await assert.rejects(
      runCommand(ctx().db, as(owner), (c) => changeTenantSettings(c, { instance: 'no-such-instance', changes: {} })),
      (e: DomainError) => e.code === 'not-found',
    );
    assert.deepEqual(await audited(name), ['instance.create', 'instance.update', 'instance.update', 'instance.update']);
  });

  it('a refused logo says why with its kind (too large, unsupported, invalid) and changes nothing', async () => {
    const name = `logo-${process.pid}`;
    await runCommand(ctx().db, as({ kind: 'admin-token' }), (c) => createTenant(c, { name, settings: {} }));
    const set = (declaredType: string, bytes: Buffer) => runCommand(ctx().db, as(owner), (c) => setTenantLogo(c, { instance: name, declaredType, bytes }));
    await assert.rejects(set('image/svg+xml', Buffer.from('<svg/>')), (e: DomainError) => e.code === 'unsupported-type' && e.fields?.[0]?.name === 'logo');
    await assert.rejects(set('image/png', Buffer.alloc(300 * 1024, 1)), (e: DomainError) => e.code === 'too-large');
    await assert.rejects(set('image/png', Buffer.from('not a png')), (e: DomainError) => e.code === 'invalid');
    assert.equal((await findInstanceByName(ctx().db, name))!.logoSha256, null);
    assert.deepEqual(await audited(name), ['instance.create']);
  });
});

describeEachStore('user commands', (ctx) => {
  const as = (actor: Actor) => ({ actor, requestId: 'test', now: new Date('2026-11-25T12:00:00Z') });

  it('only the operator and owners manage accounts; an owner cannot lock themself out; each change is audited once', async () => {
    const made = await runCommand(ctx().db, as({ kind: 'admin-token' }), (c) => addUser(c, { email: `cmd-owner-${process.pid}@example.com`, role: 'owner' }));
    assert.ok(made.password, 'a generated password is returned once');
    const owner = { kind: 'user' as const, id: made.user.id, email: made.user.email, role: 'owner' as const };
    const manager = { kind: 'user' as const, id: made.user.id, email: made.user.email, role: 'manager' as const };
    await assert.rejects(
      runCommand(ctx().db, as(manager), (c) => addUser(c, { email: `x-${process.pid}@example.com`, role: 'owner' })),
      (e: DomainError) => e.code === 'forbidden',
    );
    // The one e-mail rule (src/domain/email.ts), whichever surface calls the command.
    await assert.rejects(
      runCommand(ctx().db, as(owner), (c) => addUser(c, { email: 'cmd-user@localhost', role: 'owner' })),
      (e: DomainError) => e.code === 'invalid' && e.fields?.[0]?.name === 'email',
    );
    await assert.rejects(
      runCommand(ctx().db, as(owner), (c) => setUserDisabled(c, { id: made.user.id, disabled: true })),
      /cannot disable your own account/,
    );
    await assert.rejects(
      runCommand(ctx().db, as(owner), (c) => resetPassword(c, { id: made.user.id })),
      /cannot reset the password of your own account/,
    );
    const disabled = await runCommand(ctx().db, as({ kind: 'admin-token' }), (c) => setUserDisabled(c, { id: made.user.id, disabled: true }));
    assert.equal(disabled.disabled, true);
    const { rows } = await ctx().db.query<{ action: string }>(`SELECT action FROM audit_log WHERE target = $1 ORDER BY id`, [made.user.id]);
    assert.deepEqual(
      rows.map((r) => r.action),
      ['user.create', 'user.disable'],
    );
  });
});
