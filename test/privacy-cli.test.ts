// The operator CLI against a real server: candidate export and erase by e-mail or id, retakes,
// report links, instance settings, and the usage errors that never reach the server.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachStore, sampleAssessment } from './harness.js';
import { runCli } from './support/cli.js';
import { invite } from './support/portal.js';
import { takeAssessment } from './support/take.js';

describeEachStore(
  'CLI: candidate export and erase, retention days',
  (ctx) => {
    let url: string;

    before(async () => {
      url = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
    });

    const cli = (args: string[]) => runCli(url, args);

    it('exports and erases a candidate, sets and clears retention, and refuses bad arguments', async () => {
      const instance = await ctx().instance('cli');
      assert.equal((await ctx().publish(instance, sampleAssessment('alpha'))).statusCode, 201);
      const key = await ctx().key([instance]);
      const email = `cli.person.${process.pid}@example.com`;
      const { candidateId: id } = await invite(ctx(), { instance, key }, { email, firstName: 'Clio', lastName: 'Persona' }, ['alpha'], { query: '?sendInvite=true' });

      const exported = await cli(['candidate', 'export', '--instance', instance, '--email', email]);
      assert.equal(exported.code, 0, exported.stderr);
      const doc = JSON.parse(exported.stdout);
      assert.equal(doc.candidate.email, email);
      assert.equal(doc.deliveries[0].recipient, email);

      const erased = await cli(['candidate', 'erase', '--instance', instance, '--email', email]);
      assert.equal(erased.code, 0, erased.stderr);
      assert.match(erased.stdout, new RegExp(`Erased candidate ${id} in ${instance} \\(1 e-mail files deleted\\)`));
      const again = await cli(['candidate', 'erase', '--instance', instance, '--candidate', id, '--json']);
      assert.equal(again.code, 0, again.stderr);
      assert.equal(JSON.parse(again.stdout).erased, false);
      const unknown = await cli(['candidate', 'erase', '--instance', instance, '--email', email]);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /404 No candidate with this e-mail address/);

      const set = await cli(['instance', 'update', instance, '--retention-days', '90', '--json']);
      assert.equal(set.code, 0, set.stderr);
      assert.equal(JSON.parse(set.stdout).retentionDays, 90);
      const listed = await cli(['instance', 'list']);
      assert.match(listed.stdout, new RegExp(`${instance}\\s.*\\s90\\s`));
      const off = await cli(['instance', 'update', instance, '--retention-days', 'off', '--json']);
      assert.equal(JSON.parse(off.stdout).retentionDays, null);

      for (const args of [
        ['candidate', 'erase', '--instance', instance],
        ['candidate', 'erase', '--instance', instance, '--email', email, '--candidate', id],
        ['candidate', 'export', '--email', email],
        ['instance', 'update', instance, '--retention-days', '0'],
        ['instance', 'update', instance, '--retention-days', 'soon'],
      ]) {
        const refused = await cli(args);
        assert.equal(refused.code, 2, `${args.join(' ')}: ${refused.stderr}`);
      }
      const bad = await cli(['candidate', 'erase', '--instance', instance, '--candidate', 'not-a-uuid']);
      assert.equal(bad.code, 1);
      assert.match(bad.stderr, /400 .*candidateId/);
    });

    it('grants a retake, revokes a report link and rotates the key, and sets reminders and link lifetimes', async () => {
      const instance = await ctx().instance('cli2');
      await ctx().publish(instance, sampleAssessment('alpha'));
      const key = await ctx().key([instance]);
      const id = await takeAssessment(ctx(), instance, key, { email: `cli.retake.${process.pid}@example.com`, firstName: 'Rhea', lastName: 'Take' });

      const retake = await cli(['candidate', 'retake', '--instance', instance, '--candidate', id, '--assessment', 'alpha']);
      assert.equal(retake.code, 0, retake.stderr);
      assert.match(retake.stdout, /may take alpha again \(e-mail SENT\); the earlier attempt stays in the history\.\nTheir link: http/);
      const twice = await cli(['candidate', 'retake', '--instance', instance, '--candidate', id, '--assessment', 'alpha', '--no-email']);
      assert.equal(twice.code, 1);
      assert.match(twice.stderr, /409 .*cannot be retaken/);
      assert.equal((await cli(['candidate', 'retake', '--instance', instance, '--candidate', id])).code, 2, '--assessment is required');

      const link = (await ctx().request({ method: 'GET', url: `/v1/candidates/${id}`, headers: { 'x-api-key': key } })).json().invitations[0].reportUrl as string;
      const path = new URL(link).pathname + new URL(link).search;
      assert.equal((await ctx().request({ method: 'GET', url: path })).statusCode, 200);
      const revoked = await cli(['report-link', 'revoke', link]);
      assert.equal(revoked.code, 0, revoked.stderr);
      assert.match(revoked.stdout, /opens nothing from now on/);
      assert.equal((await ctx().request({ method: 'GET', url: path })).statusCode, 410);
      assert.equal((await cli(['report-link', 'revoke'])).code, 2);
      const rotated = await cli(['report-link', 'rotate-key', '--instance', instance, '--json']);
      assert.equal(rotated.code, 0, rotated.stderr);
      assert.equal(JSON.parse(rotated.stdout).instance, instance);

      const set = await cli(['instance', 'update', instance, '--reminder-days', 'off', '--report-link-days', '7', '--json']);
      assert.equal(set.code, 0, set.stderr);
      assert.deepEqual([JSON.parse(set.stdout).reminderDays, JSON.parse(set.stdout).reportLinkDays], [null, 7]);
      for (const args of [
        ['--reminder-days', '61'],
        ['--reminder-days', 'never'],
        ['--report-link-days', '0'],
      ]) {
        assert.equal((await cli(['instance', 'update', instance, ...args])).code, 2, args.join(' '));
      }
    });
  },
  { devMail: true },
);
