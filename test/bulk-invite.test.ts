// Inviting in bulk from a CSV file, on both stores: the preview names every bad row (line, column,
// why, in the words of POST /v1/invite), duplicates in the file and candidates known already;
// the background job invites the rest through the invite command, one row once (a row tried
// twice invites once), and a second app on the same database finishes what the first began; the
// result file; files that cannot be read change nothing; the console's roles and CSRF.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Queryable } from '../src/db/database.js';
import { inviteRow } from '../src/modules/bulk-invites/invite-row.js';
import { createFileMailer } from '../src/modules/mail/mailer.js';
import { createTestContext, sampleAssessment, storeKinds, type TestContext } from './harness.js';
import { consoleAs, consoleUser, passwordChosen } from './support/console.js';
import { invite } from './support/portal.js';

const HEADER = 'E-mail;First name;Last name;Reference;Language';
const BAD = { email: 10, firstName: 50, language: 120 };

/** 200 rows (lines 2-201), semicolon-separated with a BOM and a quoted cell; three bad rows and a duplicate of line 3 at line 150. */
function file200(tag: string): string {
  const lines = [HEADER];
  for (let line = 2; line <= 201; line++) {
    let email = `cand${line}-${tag}@example.com`;
    let first = line === 7 ? '"Anne; Marie"' : `First${line}`;
    let language = 'en';
    if (line === BAD.email) email = 'not-an-email';
    if (line === BAD.firstName) first = '';
    if (line === BAD.language) language = 'english please';
    if (line === 150) email = `CAND3-${tag}@example.com`;
    lines.push([email, first, `Last${line}`, `app-${line}`, language].join(';'));
  }
  return `\uFEFF${lines.join('\r\n')}\r\n`;
}

const b64 = (text: string | Buffer) => Buffer.from(text).toString('base64');

for (const kind of storeKinds()) {
  describe(`bulk invites [${kind.name}]`, () => {
    let store: Awaited<ReturnType<typeof kind.open>>;
    let ctx: TestContext & { close(): Promise<void> };
    let instance: string;
    let apiKey: string;
    before(async () => {
      store = await kind.open();
      ctx = await createTestContext(kind, { db: store.db });
      instance = await ctx.instance('bulk');
      assert.equal((await ctx.publish(instance, sampleAssessment('sample'))).statusCode, 201);
      apiKey = await ctx.key([instance]);
    });
    after(async () => {
      await ctx.close();
      await store.drop();
    });

    const create = (body: Record<string, unknown>) => ctx.request({ method: 'POST', url: `/admin/v1/instances/${instance}/bulk-invites`, payload: body });
    /** The invite's own answer to a payload, refusals included: its words are what the bulk preview repeats. */
    const v1Invite = (payload: Record<string, unknown>) =>
      ctx.request({ method: 'POST', url: '/v1/invite', headers: { 'x-api-key': apiKey, instance, 'content-type': 'application/json' }, payload });
    const count = async (sql: string, params: unknown[] = []) => (await ctx.db.query<{ n: number }>(sql, params)).rows[0]!.n;
    async function runUntilDone(app: TestContext, id: string) {
      for (let i = 0; i < 20; i++) {
        const state = (await app.request({ method: 'GET', url: `/admin/v1/instances/${instance}/bulk-invites/${id}` })).json();
        if (state.status !== 'running') return state;
        await app.app.jobs.runOnce('bulk-invites');
      }
      throw new Error('the bulk invite did not finish');
    }

    it('previews 200 rows: three bad rows by line, column and why (the words of /v1/invite), a duplicate, known candidates; then invites the rest once', async () => {
      // A candidate known already, with a live invitation to the assessment.
      await invite(ctx, { instance, key: apiKey }, { email: 'cand5-a@example.com', firstName: 'Known', lastName: 'Before' }, ['sample']);
      const created = await create({ fileName: 'people.csv', content: b64(file200('a')), assessments: ['sample'], sendInvite: true });
      assert.equal(created.statusCode, 201, created.body);
      const { bulkInvite, rows } = created.json();
      assert.equal(bulkInvite.status, 'ready');
      assert.equal(bulkInvite.rowCount, 200);
      assert.deepEqual(bulkInvite.mapping, { email: 'E-mail', firstName: 'First name', lastName: 'Last name', externalReference: 'Reference', language: 'Language' });
      assert.deepEqual(bulkInvite.counts, { pending: 196, invited: 0, failed: 0, invalid: 3, duplicate: 1, skipped: 0 });
      assert.equal(bulkInvite.existing, 1);

      // The same words as /v1/invite says of the same values.
      const words = async (payload: Record<string, unknown>) =>
        (await v1Invite({ email: 'x@example.com', firstName: 'X', lastName: 'Y', assessments: ['sample'], ...payload })).json().errors[0].detail as string;
      const bad = rows.filter((r: { status: string }) => r.status === 'invalid');
      assert.deepEqual(bad, [
        {
          line: BAD.email,
          email: 'not-an-email',
          status: 'invalid',
          errors: [{ column: 'E-mail', detail: await words({ email: 'not-an-email' }) }],
          notes: [],
          duplicateOf: null,
          detail: null,
        },
        {
          line: BAD.firstName,
          email: `cand${BAD.firstName}-a@example.com`,
          status: 'invalid',
          errors: [{ column: 'First name', detail: await words({ firstName: '' }) }],
          notes: [],
          duplicateOf: null,
          detail: null,
        },
        {
          line: BAD.language,
          email: `cand${BAD.language}-a@example.com`,
          status: 'invalid',
          errors: [{ column: 'Language', detail: await words({ language: 'english please' }) }],
          notes: [],
          duplicateOf: null,
          detail: null,
        },
      ]);
      const duplicate = rows.find((r: { status: string }) => r.status === 'duplicate');
      assert.equal(duplicate.line, 150);
      assert.equal(duplicate.duplicateOf, 3);
      const known = rows.find((r: { notes: string[] }) => r.notes.length > 0);
      assert.equal(known.line, 5);
      assert.match(known.notes[0], /already has a live invitation to sample/);

      // Nothing is invited before start.
      assert.equal(await count(`SELECT count(*)::int AS n FROM candidates c JOIN instances i ON i.id = c.instance_id WHERE i.name = $1`, [instance]), 1);
      const started = await ctx.request({ method: 'POST', url: `/admin/v1/instances/${instance}/bulk-invites/${bulkInvite.id}/start` });
      assert.equal(started.statusCode, 200, started.body);
      assert.equal((await ctx.request({ method: 'POST', url: `/admin/v1/instances/${instance}/bulk-invites/${bulkInvite.id}/start` })).statusCode, 409);
      const done = await runUntilDone(ctx, bulkInvite.id);
      assert.equal(done.status, 'done');
      assert.deepEqual(done.counts, { pending: 0, invited: 196, failed: 0, invalid: 3, duplicate: 1, skipped: 0 });
      assert.equal(await count(`SELECT count(*)::int AS n FROM candidates c JOIN instances i ON i.id = c.instance_id WHERE i.name = $1`, [instance]), 196);
      assert.equal(await count(`SELECT count(*)::int AS n FROM invitations v JOIN instances i ON i.id = v.instance_id WHERE i.name = $1`, [instance]), 196);
      assert.equal(await count(`SELECT count(*)::int AS n FROM invitations WHERE external_reference = 'app-150'`), 0);
      assert.equal(await count(`SELECT count(*)::int AS n FROM invitations WHERE external_reference = 'app-42'`), 1);
      // Every row's invite is audited as the operator who started, as the invite of /v1/invite is.
      assert.equal(await count(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'invitation.create' AND request_id LIKE $1`, [`bulk-invite:${bulkInvite.id}:%`]), 196);
      for (const action of ['bulk-invite.import', 'bulk-invite.prepare', 'bulk-invite.start'])
        assert.equal(await count(`SELECT count(*)::int AS n FROM audit_log WHERE action = $1 AND target = $2`, [action, bulkInvite.id]), 1, action);

      const result = await ctx.request({ method: 'GET', url: `/admin/v1/instances/${instance}/bulk-invites/${bulkInvite.id}/result` });
      assert.equal(result.statusCode, 200);
      assert.match(String(result.headers['content-type']), /^text\/csv/);
      const lines = result.body.trimEnd().split('\r\n');
      assert.equal(lines.length, 201);
      assert.equal(lines[0], '"line","email","outcome","candidateId","link"');
      assert.match(lines[1]!, /^"2","cand2-a@example\.com","invited","[0-9a-f-]{36}","e-mailed"$/);
      assert.equal(lines[BAD.email - 1], `"${BAD.email}","not-an-email","not invited: invalid","","E-mail: ${(await words({ email: 'not-an-email' })).replace(/"/g, '""')}"`);
      assert.equal(lines[149], '"150","CAND3-a@example.com","not invited: duplicate","","the same e-mail as line 3"');

      // A finished file keeps only what its result file says; erasing a candidate erases their rows too.
      assert.equal(await count(`SELECT count(*)::int AS n FROM bulk_invite_rows WHERE bulk_invite_id = $1 AND cells <> '[]'::jsonb`, [bulkInvite.id]), 0);
      const erased = await ctx.request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/erase`, payload: { email: 'cand3-a@example.com' } });
      assert.equal(erased.statusCode, 200, erased.body);
      const after = (await ctx.request({ method: 'GET', url: `/admin/v1/instances/${instance}/bulk-invites/${bulkInvite.id}/result` })).body.split('\r\n');
      assert.match(after[2]!, /^"3","","invited","[0-9a-f-]{36}","e-mailed; erased"$/);
      assert.equal(after[149], '"150","","not invited: duplicate","","the same e-mail as line 3"');
      assert.equal(await count(`SELECT count(*)::int AS n FROM bulk_invite_rows WHERE lower(email) = 'cand3-a@example.com'`), 0);
    });

    it('invites a row once however often it is tried, and a second app on the same database finishes what the first began', async () => {
      const csv = ['email,firstName,lastName', ...Array.from({ length: 30 }, (_, i) => `resume${i}@example.com,R${i},Resume`)].join('\n');
      const { bulkInvite } = (await create({ content: b64(csv), assessments: ['sample'], sendInvite: false })).json();
      assert.equal((await ctx.request({ method: 'POST', url: `/admin/v1/instances/${instance}/bulk-invites/${bulkInvite.id}/start` })).statusCode, 200);
      const deps = {
        db: ctx.db,
        mailer: createFileMailer({ from: 'T <t@localhost>', timeoutMs: 1000, mailDir: ctx.mailDir }),
        publicUrl: 'http://portal.test',
        mailFrom: 't@localhost',
        now: () => new Date(),
      };
      // The same row tried twice, at once and again: invited once.
      const row = { bulkInviteId: bulkInvite.id, line: 2 };
      const both = await Promise.all([inviteRow(deps, new Date(), row), inviteRow(deps, new Date(), row)]);
      assert.deepEqual(both.map((o) => o.kind).sort(), ['done', 'none']);
      assert.deepEqual(await inviteRow(deps, new Date(), row), { kind: 'none' });
      for (let i = 0; i < 9; i++) assert.equal((await inviteRow(deps, new Date())).kind, 'done');
      // The node stops; another starts on the same database and picks the rest up.
      const second = await createTestContext(kind, { db: store.db });
      try {
        const done = await runUntilDone(second, bulkInvite.id);
        assert.equal(done.status, 'done');
        assert.equal(done.counts.invited, 30);
      } finally {
        await second.close();
      }
      assert.equal(await count(`SELECT count(*)::int AS n FROM candidates WHERE email LIKE 'resume%'`), 30);
      assert.equal(await count(`SELECT count(*)::int AS n FROM invitations v JOIN candidates c ON c.id = v.candidate_id WHERE c.email LIKE 'resume%'`), 30);
      assert.equal(await count(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'invitation.create' AND request_id = $1`, [`bulk-invite:${bulkInvite.id}:2`]), 1);
    });

    it('a row the invite refuses fails alone; cancel leaves the rest; start and cancel refuse what they cannot do', async () => {
      const csv = ['email,firstName,lastName', ...Array.from({ length: 6 }, (_, i) => `stop${i}@example.com,S${i},Stop`)].join('\n');
      const { bulkInvite } = (await create({ content: b64(csv), assessments: ['sample'], sendInvite: false })).json();
      const path = `/admin/v1/instances/${instance}/bulk-invites/${bulkInvite.id}`;
      assert.equal((await ctx.request({ method: 'POST', url: `${path}/start` })).statusCode, 200);
      const deps = {
        db: ctx.db,
        mailer: createFileMailer({ from: 'T <t@localhost>', timeoutMs: 1000, mailDir: ctx.mailDir }),
        publicUrl: 'http://portal.test',
        mailFrom: 't@localhost',
        now: () => new Date(),
      };
      assert.equal((await inviteRow(deps, new Date(), { bulkInviteId: bulkInvite.id, line: 2 })).kind, 'done');
      // The assessment is gone when line 3's turn comes (as if withdrawn since the preview): the
      // invite command refuses it, undoing only its own writes; the row fails with the reason.
      await ctx.db.query(`UPDATE bulk_invites SET assessments = '{gone}' WHERE id = $1`, [bulkInvite.id]);
      assert.deepEqual(await inviteRow(deps, new Date(), { bulkInviteId: bulkInvite.id, line: 3 }), { kind: 'done', bulkInviteId: bulkInvite.id, line: 3, status: 'failed' });
      assert.equal(await count(`SELECT count(*)::int AS n FROM candidates WHERE email = 'stop1@example.com'`), 0);
      const cancelled = await ctx.request({ method: 'POST', url: `${path}/cancel` });
      assert.equal(cancelled.statusCode, 200, cancelled.body);
      assert.equal(cancelled.json().status, 'cancelled');
      assert.deepEqual(cancelled.json().counts, { pending: 0, invited: 1, failed: 1, invalid: 0, duplicate: 0, skipped: 4 });
      assert.deepEqual(await inviteRow(deps, new Date()), { kind: 'none' });
      assert.equal((await ctx.request({ method: 'POST', url: `${path}/cancel` })).statusCode, 409);
      assert.equal((await ctx.request({ method: 'POST', url: `${path}/start` })).statusCode, 409);
      assert.equal((await ctx.request({ method: 'GET', url: `/admin/v1/instances/${instance}/bulk-invites/999999` })).statusCode, 404);
      assert.equal(await count(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'bulk-invite.cancel' AND target = $1`, [bulkInvite.id]), 1);
      const result = (await ctx.request({ method: 'GET', url: `${path}/result` })).body.split('\r\n');
      assert.equal(
        result[2],
        '"3","stop1@example.com","not invited: refused","","Unknown assessment for this instance: gone; assessments.0: ""gone"" is not a published assessment of this instance"',
      );
      assert.equal(result[3], '"4","stop2@example.com","not invited: cancelled","",""');
      // Another instance's file is not found from here.
      const other = await ctx.instance('bulk-other');
      assert.equal((await ctx.request({ method: 'GET', url: `/admin/v1/instances/${other}/bulk-invites/${bulkInvite.id}` })).statusCode, 404);
    });

    it('a row that meets an unexpected error fails alone, with a reference, instead of holding up the rows after it', async () => {
      const csv = ['email,firstName,lastName', 'fault0@example.com,F,Zero', 'fault1@example.com,F,One'].join('\n');
      const { bulkInvite } = (await create({ content: b64(csv), assessments: ['sample'], sendInvite: false })).json();
      assert.equal((await ctx.request({ method: 'POST', url: `/admin/v1/instances/${instance}/bulk-invites/${bulkInvite.id}/start` })).statusCode, 200);
      const heard: string[] = [];
      // A store whose candidate insert fails for fault0 alone, as a fault of ours would.
      const faulty = {
        ...ctx.db,
        transaction: <T>(fn: (tx: Queryable) => Promise<T>, name?: string) =>
          ctx.db.transaction(
            (tx) =>
              fn({
                query: (text: string, params?: unknown[]) =>
                  /INSERT INTO candidates/.test(text) && JSON.stringify(params ?? []).includes('fault0@') ? Promise.reject(new Error('boom')) : tx.query(text, params),
              } as Queryable),
            name,
          ),
      } as typeof ctx.db;
      const deps = {
        db: faulty,
        mailer: createFileMailer({ from: 'T <t@localhost>', timeoutMs: 1000, mailDir: ctx.mailDir }),
        publicUrl: 'http://portal.test',
        mailFrom: 't@localhost',
        now: () => new Date(),
        onRowError: (_error: unknown, reference: string) => heard.push(reference),
      };
      const first = await inviteRow(deps, new Date(), { bulkInviteId: bulkInvite.id, line: 2 });
      assert.deepEqual(first, { kind: 'done', bulkInviteId: bulkInvite.id, line: 2, status: 'failed' });
      assert.deepEqual(heard, [`bulk-invite:${bulkInvite.id}:2`]);
      assert.equal((await inviteRow(deps, new Date(), { bulkInviteId: bulkInvite.id, line: 3 })).kind, 'done');
      const result = (await ctx.request({ method: 'GET', url: `/admin/v1/instances/${instance}/bulk-invites/${bulkInvite.id}/result` })).body;
      assert.match(result, /"2","fault0@example.com","not invited: refused","","could not be invited: an error on our side \(reference bulk-invite:\d+:2\)/);
      assert.doesNotMatch(result, /boom/, 'the detail stays in the log');
      assert.equal(await count(`SELECT count(*)::int AS n FROM candidates WHERE email = 'fault1@example.com'`), 1);
    });

    it('a cancel racing the last row ends in one consistent state, never an error', async () => {
      const deps = {
        db: ctx.db,
        mailer: createFileMailer({ from: 'T <t@localhost>', timeoutMs: 1000, mailDir: ctx.mailDir }),
        publicUrl: 'http://portal.test',
        mailFrom: 't@localhost',
        now: () => new Date(),
      };
      for (let round = 0; round < 5; round++) {
        const { bulkInvite } = (await create({ content: b64(`email,firstName,lastName\nrace${round}@example.com,R,Race\n`), assessments: ['sample'], sendInvite: false })).json();
        const path = `/admin/v1/instances/${instance}/bulk-invites/${bulkInvite.id}`;
        assert.equal((await ctx.request({ method: 'POST', url: `${path}/start` })).statusCode, 200);
        const [row, cancel] = await Promise.all([inviteRow(deps, new Date(), { bulkInviteId: bulkInvite.id, line: 2 }), ctx.request({ method: 'POST', url: `${path}/cancel` })]);
        const state = (await ctx.request({ method: 'GET', url: path })).json();
        if (cancel.statusCode === 409) {
          assert.equal(row.kind, 'done');
          assert.equal(state.status, 'done');
          assert.equal(state.counts.invited, 1);
        } else {
          assert.equal(cancel.statusCode, 200, cancel.body);
          assert.equal(state.status, 'cancelled');
          assert.equal(state.counts.invited + state.counts.skipped, 1);
          assert.equal(state.counts.invited, row.kind === 'done' ? 1 : 0);
        }
      }
    });

    it('finds the e-mail column by its cells when no header names it, and takes a mapping by header', async () => {
      const csv = 'Contact;Given;Family;Notes\nd1@example.com;D;One;x\nd2@example.com;D;Two;y\n';
      const guessed = (await create({ content: b64(csv), assessments: ['sample'] })).json();
      assert.deepEqual(guessed.bulkInvite.mapping, { email: 'Contact', firstName: 'Given', lastName: 'Family' });
      const mapped = await create({ content: b64(csv), assessments: ['sample'], mapping: { lastName: 'Notes', externalReference: 'Family' } });
      assert.equal(mapped.statusCode, 201, mapped.body);
      assert.deepEqual(mapped.json().bulkInvite.mapping, { email: 'Contact', firstName: 'Given', lastName: 'Notes', externalReference: 'Family' });
      const wrong = await create({ content: b64(csv), assessments: ['sample'], mapping: { email: 'Mail' } });
      assert.equal(wrong.statusCode, 400);
      assert.match(wrong.json().errors[0].detail, /the file has no column "Mail" \(its columns: Contact, Given, Family, Notes\)/);
    });

    it('refuses files it cannot read, with a clear reason, and stores nothing', async () => {
      const before = await count('SELECT count(*)::int AS n FROM bulk_invites');
      const cases: [string, Buffer | string, RegExp, Record<string, unknown>?][] = [
        ['empty', '', /must NOT have fewer than 1 characters|the file is empty/],
        ['blank', '\uFEFF\r\n\r\n', /the file is empty/],
        ['header only', 'email,firstName,lastName\n', /a header but no rows/],
        ['no e-mail column', 'Name;Phone\nJane;123\n', /no e-mail column/],
        ['binary junk', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d]), /not UTF-8|binary data/],
        ['wrong encoding', Buffer.from('email,firstName,lastName\nm@example.com,J\xfcrgen,M\xfcller\n', 'latin1'), /not UTF-8 text \(first bad byte on line 2\)/],
        ['a workbook', Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), Buffer.alloc(20)]), /spreadsheet workbook/],
        ['a ragged row', 'email,firstName,lastName\na@example.com,A,B,extra\n', /line 2 has 4 cells but the header names 3 columns/],
        ['unclosed quote', 'email,firstName,lastName\n"a@example.com,A,B\n', /not well-formed CSV/],
        ['too many rows', ['email,firstName,lastName', ...Array.from({ length: 10_001 }, (_, i) => `m${i}@example.com,A,B`)].join('\n'), /more than 10000 rows/],
        ['unknown assessment', 'email,firstName,lastName\na@example.com,A,B\n', /Unknown assessment for this instance: nope/, { assessments: ['nope'] }],
      ];
      for (const [name, content, reason, extra] of cases) {
        const response = await create({ content: b64(content), assessments: ['sample'], ...extra });
        assert.equal(response.statusCode, 400, `${name}: ${response.body}`);
        assert.match(JSON.stringify(response.json()), reason, name);
      }
      assert.equal(await count('SELECT count(*)::int AS n FROM bulk_invites'), before);
    });

    it('in the console: owners and managers upload, map, preview, start and download; a reviewer may not; a form from elsewhere is refused', async () => {
      const password = (await consoleUser(ctx, `mgr-${kind.name}@example.com`, 'manager', [instance])).password;
      const reviewer = await consoleUser(ctx, `rev-${kind.name}@example.com`, 'reviewer', [instance]);
      await passwordChosen(ctx, `rev-${kind.name}@example.com`);
      const manager = await consoleAs(ctx, `mgr-${kind.name}@example.com`, password);
      const rev = await consoleAs(ctx, `rev-${kind.name}@example.com`, reviewer.password);

      const page = await manager.get(`/console/invite/bulk?instance=${instance}`);
      assert.equal(page.statusCode, 200);
      assert.match(
        page.body,
        /Optional columns: <strong>assessments<\/strong>, the ids of the row.s own assessments separated by <code>;<\/code> or <code>\|<\/code>/,
        'the hint names the per-row assessments column',
      );
      assert.match(page.body, /<strong>language<\/strong>/);
      assert.match((await manager.get(`/console/invitations?instance=${instance}`)).body, /href="\/console\/invite\/bulk\?instance=/);
      assert.equal((await rev.get(`/console/invite/bulk?instance=${instance}`)).statusCode, 403);
      assert.doesNotMatch((await rev.get(`/console/invitations?instance=${instance}`)).body, /invite\/bulk/);

      const upload = (who: typeof manager, csv: string | Buffer, csrf = who.csrf) => {
        const boundary = '----bulk' + Math.random().toString(16).slice(2);
        const part = (name: string, value: string | Buffer, filename?: string) =>
          Buffer.concat([
            Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${filename ? `; filename="${filename}"\r\nContent-Type: text/csv` : ''}\r\n\r\n`),
            Buffer.from(value),
            Buffer.from('\r\n'),
          ]);
        const payload = Buffer.concat([part('_csrf', csrf), part('instance', instance), part('file', csv, 'console.csv'), Buffer.from(`--${boundary}--\r\n`)]);
        return ctx.request({ method: 'POST', url: '/console/invite/bulk', headers: { cookie: who.cookie, 'content-type': `multipart/form-data; boundary=${boundary}` }, payload });
      };
      const csv = 'Mail,Given name,Surname\nc1@example.com,C,One\nnot-mail,C,Two\nc3@example.com,C,Three\n';
      assert.equal((await upload(rev, csv)).statusCode, 403);
      assert.equal((await upload(manager, csv, 'not-the-token')).statusCode, 403);
      const before = await count('SELECT count(*)::int AS n FROM bulk_invites');
      const empty = await upload(manager, '');
      assert.equal(empty.statusCode, 400);
      assert.match(empty.body, /choose a CSV file|the file is empty/);
      const noEmail = await upload(manager, 'Name;Phone\nJane;123\n');
      assert.equal(noEmail.statusCode, 400);
      assert.match(noEmail.body, /no column holds e-mail addresses \(its columns: Name, Phone\)/);
      const huge = await upload(manager, `email,firstName,lastName\n${'a@example.com,A,B\n'.repeat(300_000)}`);
      assert.equal(huge.statusCode, 400);
      assert.match(huge.body, /the file is larger than 5 MB; split it into smaller files/);
      const latin1 = await upload(manager, Buffer.from('email,firstName,lastName\nm@example.com,J\xfcrgen,M\xfcller\n', 'latin1'));
      assert.equal(latin1.statusCode, 400);
      assert.match(latin1.body, /not UTF-8 text \(first bad byte on line 2\)/);
      assert.equal(await count('SELECT count(*)::int AS n FROM bulk_invites'), before);

      const uploaded = await upload(manager, csv);
      assert.equal(uploaded.statusCode, 303, uploaded.body);
      const detail = String(uploaded.headers.location);
      const id = /\/console\/invite\/bulk\/(\d+)\?/.exec(detail)![1]!;
      const mapping = await manager.get(detail);
      assert.match(mapping.body, /<select id="map-email" name="map_email"><option value="">\(none\)<\/option><option value="0" selected>Mail<\/option>/);
      // Given name and Surname are not guessed: the preview asks for them.
      const form = (fields: [string, string][]) => manager.post(`/console/invite/bulk/${id}/preview`, [['instance', instance], ...fields]);
      const missing = await form([
        ['map_email', '0'],
        ['assessments', 'sample'],
      ]);
      assert.equal(missing.statusCode, 400);
      assert.match(missing.body, /is required: choose the file&#39;s first name column|is required: choose the file's first name column/);
      assert.equal((await rev.post(`/console/invite/bulk/${id}/preview`, { instance, map_email: '0' })).statusCode, 403);
      const previewed = await form([
        ['map_email', '0'],
        ['map_firstName', '1'],
        ['map_lastName', '2'],
        ['assessments', 'sample'],
      ]);
      assert.equal(previewed.statusCode, 303, previewed.body);
      const preview = await manager.get(detail);
      assert.match(preview.body, /3 rows: 2 to invite, <strong>1 bad<\/strong>/);
      assert.match(preview.body, /<td>3<\/td><td>not-mail<\/td><td>bad row: not invited<\/td><td><ul class="plain"><li><strong>Mail<\/strong>: /);
      assert.equal((await rev.post(`/console/invite/bulk/${id}/start`, { instance })).statusCode, 403);
      assert.equal((await manager.post(`/console/invite/bulk/${id}/start`, { instance })).statusCode, 303);
      assert.match((await manager.get(detail)).body, /data-refresh="2"/);
      await runUntilDone(ctx, id);
      const finished = await manager.get(detail);
      assert.match(finished.body, /done: 2 of 2 rows tried, 2 invited, 0 refused/);
      const result = await manager.get(`/console/invite/bulk/${id}/result.csv?instance=${instance}`);
      assert.equal(result.statusCode, 200);
      assert.match(result.body, /"3","not-mail","not invited: invalid","","Mail: /);
      assert.equal((await rev.get(`/console/invite/bulk/${id}/result.csv?instance=${instance}`)).statusCode, 403);
      assert.equal(
        await count(`SELECT count(*)::int AS n FROM audit_log WHERE action = 'bulk-invite.start' AND target = $1 AND actor = $2`, [id, `user:mgr-${kind.name}@example.com`]),
        1,
      );

      // A file with an assessments column: its rows name their own, and no default needs choosing.
      const own = await upload(manager, 'email,firstName,lastName,Assessments\nd1@example.com,D,One,sample\nd2@example.com,D,Two,\n');
      assert.equal(own.statusCode, 303, own.body);
      const ownDetail = String(own.headers.location);
      const ownId = /\/console\/invite\/bulk\/(\d+)\?/.exec(ownDetail)![1]!;
      assert.match(
        (await manager.get(ownDetail)).body,
        /<select id="map-assessments" name="map_assessments"><option value="">\(none\)<\/option>(<option value="\d">[^<]+<\/option>)*<option value="3" selected>Assessments<\/option>/,
      );
      const ownPreview = await manager.post(`/console/invite/bulk/${ownId}/preview`, [
        ['instance', instance],
        ['map_email', '0'],
        ['map_firstName', '1'],
        ['map_lastName', '2'],
        ['map_assessments', '3'],
      ]);
      assert.equal(ownPreview.statusCode, 303, ownPreview.body);
      const ownBody = (await manager.get(ownDetail)).body;
      assert.match(ownBody, /2 rows: 1 to invite, <strong>1 bad<\/strong>/);
      assert.match(ownBody, /names no assessment, and no default assessment was chosen/);
    });
  });
}
