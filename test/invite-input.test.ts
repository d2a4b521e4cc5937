// One parser for the invite (src/modules/invitations/invite-input.ts): the public API, the
// console's invite form and a CSV file's rows give the same bad address the same words, and the
// same person (the e-mail in any case, padded where a form or a cell carries spaces) is one
// candidate whose names are trimmed the same way.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore, sampleAssessment } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';

const b64 = (text: string) => Buffer.from(text).toString('base64');
const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');

describeEachStore('one invite parser for the API, the console and CSV files', (ctx) => {
  it('answers the same bad address alike on each, and makes the same person one candidate', async () => {
    const instance = await ctx().instance('parse');
    assert.equal((await ctx().publish(instance, sampleAssessment('sample'))).statusCode, 201);
    const key = await ctx().key([instance]);
    const ownerEmail = `owner-${instance}@example.com`;
    const owner = await consoleAs(ctx(), ownerEmail, (await consoleUser(ctx(), ownerEmail, 'owner')).password);
    const api = (payload: Record<string, unknown>) =>
      ctx().request({ method: 'POST', url: '/v1/invite', headers: { 'x-api-key': key, instance, 'content-type': 'application/json' }, payload });
    const form = (email: string, firstName = 'Jane', lastName = 'Doe') =>
      owner.post('/console/invitations', [
        ['instance', instance],
        ['email', email],
        ['firstName', firstName],
        ['lastName', lastName],
        ['assessments', 'sample'],
      ]);
    const upload = async (lines: string[]) => {
      const created = await ctx().request({
        method: 'POST',
        url: `/admin/v1/instances/${instance}/bulk-invites`,
        payload: { fileName: 'people.csv', content: b64(['E-mail,First name,Last name', ...lines].join('\n')), assessments: ['sample'] },
      });
      assert.equal(created.statusCode, 201, created.body);
      return created.json() as { bulkInvite: { id: string }; rows: { status: string; errors: { column: string; detail: string }[] }[] };
    };

    for (const email of ['jane@', 'not-an-address', 'jane@exa mple.com', 'jäne@example.com', `${'a'.repeat(250)}@example.com`]) {
      const fromApi = await api({ email, firstName: 'Jane', lastName: 'Doe', assessments: ['sample'] });
      assert.equal(fromApi.statusCode, 400, email);
      const errors = fromApi.json().errors as { name: string; detail: string }[];
      assert.deepEqual(
        errors.map((e) => e.name),
        ['email'],
        email,
      );
      const detail = errors[0]!.detail;
      const fromConsole = await form(email);
      assert.equal(fromConsole.statusCode, 400, email);
      assert.ok(fromConsole.body.includes(escaped(detail)), `${email}: the console says ${JSON.stringify(detail)}`);
      const fromFile = await upload([`${email},Jane,Doe`]);
      assert.deepEqual(fromFile.rows[0]!.errors, [{ column: 'E-mail', detail }], email);
    }
    const { rows } = await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM candidates c JOIN instances i ON i.id = c.instance_id WHERE i.name = $1', [instance]);
    assert.equal(rows[0]!.n, 0, 'no bad address made a candidate');

    // The same person from each: one candidate, names trimmed alike.
    const first = await api({ email: 'Jane.Doe@Example.com', firstName: ' Jane ', lastName: 'Doe ', assessments: ['sample'] });
    assert.equal(first.statusCode, 200, first.body);
    const candidateId = first.json()[0].candidateId as string;
    assert.equal((await form('  jane.doe@example.com ', ' Janet', 'Doe  ')).statusCode, 200);
    const named = async () =>
      (await ctx().db.query<{ id: string; first: string; last: string }>('SELECT id::text, first_name AS first, last_name AS last FROM candidates WHERE id = $1', [candidateId]))
        .rows[0];
    assert.deepEqual(await named(), { id: candidateId, first: 'Janet', last: 'Doe' });
    const file = await upload(['JANE.DOE@example.com , Jan ,Doe']);
    assert.equal(file.rows[0]!.status, 'pending', JSON.stringify(file.rows[0]));
    const started = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/bulk-invites/${file.bulkInvite.id}/start`, payload: {} });
    assert.ok(started.statusCode < 300, started.body);
    for (let i = 0; i < 10; i++) await ctx().app.jobs.runOnce('bulk-invites');
    const all = await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM candidates c JOIN instances i ON i.id = c.instance_id WHERE i.name = $1', [instance]);
    assert.equal(all.rows[0]!.n, 1, 'one candidate for the same person');
    assert.deepEqual(await named(), { id: candidateId, first: 'Jan', last: 'Doe' });
  });
});
