// The CLI's invite --csv, against a running server on both stores: it prints the rows it will not
// invite (line, column, why), follows the service to the end with a progress line, saves the
// result file; --no-wait leaves the work to the service (invite status looks again); a file that
// cannot be read is an error that starts nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { describeEachStore, sampleAssessment } from './harness.js';
import { runCli } from './support/cli.js';

describeEachStore(
  'CLI: invite --csv',
  (ctx) => {
    let url: string;
    let dir: string;
    before(async () => {
      url = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
      dir = mkdtempSync(path.join(tmpdir(), 'ac-bulk-cli-'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));
    const cli = (args: string[]) => runCli(url, args);
    const file = (name: string, content: string | Buffer) => {
      const at = path.join(dir, name);
      writeFileSync(at, content);
      return at;
    };

    it('prints the bad rows, waits for the service with progress, and saves the result file', async () => {
      const instance = await ctx().instance('bulkcli');
      assert.equal((await ctx().publish(instance, sampleAssessment('sample'))).statusCode, 201);
      const rows = ['email,first name,last name', 'a1@example.com,A,One', 'bad-address,A,Two', 'a3@example.com,,Three', 'A1@example.com,A,Again', 'a5@example.com,A,Five'];
      const csv = file('people.csv', rows.join('\n'));
      const resultFile = path.join(dir, 'result.csv');
      const run = await cli(['invite', '--csv', csv, '--assessment', 'sample', '--instance', instance, '--no-email', '--result', resultFile]);
      assert.equal(run.code, 0, run.stderr);
      const lines = run.stdout.trimEnd().split('\n');
      assert.match(lines[0]!, /^Bulk invite \d+: 5 rows, 2 to invite\.$/);
      assert.equal(lines[1], 'Not invited (3):');
      assert.match(lines[2]!, /^ {2}line 3: email: must match format "email"$/);
      assert.equal(lines[3], '  line 4: first name: must NOT have fewer than 1 characters');
      assert.equal(lines[4], '  line 5: A1@example.com is a duplicate of line 2');
      assert.match(lines[5]!, /^Bulk invite \d+ done: 2 invited, 0 refused, 2 invalid and 1 duplicate rows not invited\.$/);
      assert.equal(lines[6], `Result file: ${resultFile}`);
      const result = readFileSync(resultFile, 'utf8').trimEnd().split('\r\n');
      assert.equal(result.length, 6);
      assert.match(result[1]!, /^"2","a1@example\.com","invited","[0-9a-f-]{36}","link not e-mailed/);
    });

    it('--no-wait leaves the work to the service; invite status follows it; bad files and options are errors', async () => {
      const instance = await ctx().instance('bulkcli');
      assert.equal((await ctx().publish(instance, sampleAssessment('sample'))).statusCode, 201);
      const csv = file('two.csv', 'Email;First name;Last name\nb1@example.com;B;One\nb2@example.com;B;Two\n');
      const run = await cli(['invite', '--csv', csv, '--assessment', 'sample', '--instance', instance, '--no-email', '--no-wait']);
      assert.equal(run.code, 0, run.stderr);
      const id = /Bulk invite (\d+)/.exec(run.stdout)![1]!;
      assert.match(run.stdout, new RegExp(`Started; follow it with: assessment-connect invite status ${id} --instance ${instance}`));
      await ctx().app.jobs.runOnce('bulk-invites');
      const status = await cli(['invite', 'status', id, '--instance', instance]);
      assert.equal(status.code, 0, status.stderr);
      assert.match(status.stdout, new RegExp(`Bulk invite ${id} done: 2 invited`));

      const latin1 = await cli([
        'invite',
        '--csv',
        file('latin1.csv', Buffer.from('email,firstName,lastName\nm@example.com,J\xfcrgen,M\xfcller\n', 'latin1')),
        '--assessment',
        'sample',
        '--instance',
        instance,
      ]);
      assert.equal(latin1.code, 1);
      assert.match(latin1.stderr, /400 The file cannot be read: the file is not UTF-8 text \(first bad byte on line 2\)/);
      const noEmail = await cli(['invite', '--csv', file('names.csv', 'Name,Phone\nJane,1\n'), '--assessment', 'sample', '--instance', instance]);
      assert.equal(noEmail.code, 1);
      assert.match(noEmail.stderr, /The file has no e-mail column/);
      const missing = await cli(['invite', '--csv', path.join(dir, 'nope.csv'), '--assessment', 'sample', '--instance', instance]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /cannot read .*nope\.csv/);
      const mapped = await cli([
        'invite',
        '--csv',
        file('mapped.csv', 'Contact,Given,Notes\nc1@example.com,C,One\n'),
        '--assessment',
        'sample',
        '--instance',
        instance,
        '--no-email',
        '--no-wait',
        '--map',
        'lastName=Notes',
        '--json',
      ]);
      assert.equal(mapped.code, 0, mapped.stderr);
      assert.deepEqual(JSON.parse(mapped.stdout).bulkInvite.mapping, { email: 'Contact', firstName: 'Given', lastName: 'Notes' });
      const badMap = await cli(['invite', '--csv', csv, '--assessment', 'sample', '--instance', instance, '--map', 'surname=Notes']);
      assert.equal(badMap.code, 2);
      assert.match(badMap.stderr, /--map takes field=Header pairs/);
      // No assessments column and no default: the service says what to do, and nothing is stored.
      const noAssessment = await cli(['invite', '--csv', csv, '--instance', instance]);
      assert.equal(noAssessment.code, 1);
      assert.match(noAssessment.stderr, /choose at least one assessment, or map the file's assessments column/);
    });

    it("uses each row's own assessments (ids separated by ; or |) and language; --assessment is the default for rows that name none", async () => {
      const instance = await ctx().instance('bulkrows');
      for (const id of ['alpha', 'beta', 'gamma']) assert.equal((await ctx().publish(instance, sampleAssessment(id))).statusCode, 201);
      const rows = [
        'email,first name,last name,assessments,language',
        'r1@example.com,Rae,One,alpha;beta,de',
        'r2@example.com,Rae,Two,gamma|alpha,es',
        'r3@example.com,Rae,Three,,',
        'r4@example.com,Rae,Four,nosuch,',
      ];
      const invitedTo = async (email: string) =>
        (
          await ctx().db.query<{ slug: string; language: string | null }>(
            `SELECT a.slug, i.language FROM invitations i JOIN assessments a ON a.id = i.assessment_id JOIN candidates c ON c.id = i.candidate_id
              WHERE c.email = $1 AND i.instance_id = (SELECT id FROM instances WHERE name = $2) ORDER BY a.slug`,
            [email, instance],
          )
        ).rows.map((r) => `${r.slug}:${r.language ?? '-'}`);
      // Without a default, the row that names none is a bad row, as is the unknown id; the others are invited.
      const run = await cli(['invite', '--csv', file('rows.csv', rows.join('\n')), '--instance', instance, '--no-email']);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /: 4 rows, 2 to invite\./);
      assert.match(run.stdout, /line 4: assessments: names no assessment, and no default assessment was chosen/);
      assert.match(run.stdout, /line 5: assessments: "nosuch" is not a published assessment of this instance/);
      assert.deepEqual(await invitedTo('r1@example.com'), ['alpha:de', 'beta:de']);
      assert.deepEqual(await invitedTo('r2@example.com'), ['alpha:es', 'gamma:es']);
      assert.deepEqual(await invitedTo('r3@example.com'), []);
      // With --assessment, it is the default of the row that names none; the rows' own still win.
      const again = await cli([
        'invite',
        '--csv',
        file('rows2.csv', [rows[0], rows[3]!.replace('r3@', 'r5@'), rows[1]!.replace('r1@', 'r6@')].join('\n')),
        '--assessment',
        'beta',
        '--instance',
        instance,
        '--no-email',
      ]);
      assert.equal(again.code, 0, again.stderr);
      assert.deepEqual(await invitedTo('r5@example.com'), ['beta:-']);
      assert.deepEqual(await invitedTo('r6@example.com'), ['alpha:de', 'beta:de']);
    });
  },
  // The CLI waits for the service's own job, as an operator's would.
  { bulkInviteEveryMs: 200 },
);
