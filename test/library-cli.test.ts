// The CLI's library commands: list the library (and what an instance offers), offer assessments.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachStore, sampleAssessment } from './harness.js';
import { runCli } from './support/cli.js';
import { invite } from './support/portal.js';

describeEachStore('CLI: the assessment library', (ctx) => {
  let url: string;
  before(async () => {
    url = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
  });
  const cli = (args: string[]) => runCli(url, args);

  it('lists the library, offers chosen assessments, keeps own content unless --update, and says so', async () => {
    const instance = await ctx().instance();
    const all = await cli(['library', 'list']);
    assert.equal(all.code, 0, all.stderr);
    assert.match(all.stdout, /verbal-reasoning +Verbal Reasoning +20 +CEFR B2 +Administrator, /);

    assert.equal((await ctx().publish(instance, sampleAssessment('big-five'))).statusCode, 201);
    const offered = await cli(['library', 'offer', 'verbal-reasoning', 'big-five', '--instance', instance]);
    assert.equal(offered.code, 0, offered.stderr);
    assert.equal(offered.stdout, `Offered verbal-reasoning (version 1)\nKept: ${instance} has its own content under big-five (--update replaces it with a new version)\n`);
    const mine = await cli(['library', 'list', '--instance', instance, '--json']);
    const state = Object.fromEntries((JSON.parse(mine.stdout) as { id: string; offered: string }[]).map((a) => [a.id, a.offered]));
    assert.equal(state['verbal-reasoning'], 'current');
    assert.equal(state['big-five'], 'other');
    assert.equal(state['typing-basic'], 'no');

    const updated = await cli(['library', 'offer', 'big-five', '--instance', instance, '--update']);
    assert.equal(updated.stdout, "Replaced big-five by the library's content (version 2); started attempts keep theirs\n");
    const unknown = await cli(['library', 'offer', 'palmistry', '--instance', instance]);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /"palmistry" is not an assessment of the library/);
    const usage = await cli(['library', 'offer', '--instance', instance]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /library offer needs at least one library id/);
  });

  it('offers the JavaScript and Python coding tests to a new instance in one command, ready to invite to', async () => {
    const instance = await ctx().instance();
    const offered = await cli(['library', 'offer', 'javascript-fundamentals', 'python-fundamentals', '--instance', instance]);
    assert.equal(offered.code, 0, offered.stderr);
    assert.equal(offered.stdout, 'Offered javascript-fundamentals (version 1)\nOffered python-fundamentals (version 1)\n');
    const key = await ctx().key([instance]);
    const invited = await invite(ctx(), { instance, key }, { email: 'dev@example.com', firstName: 'Grace', lastName: 'Hopper' }, [
      'javascript-fundamentals',
      'python-fundamentals',
    ]);
    assert.match(invited.link, /sessionToken=/);
    const listed = (await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key } })).json() as { id: string }[];
    assert.deepEqual(listed.map((a) => a.id).sort(), ['javascript-fundamentals', 'python-fundamentals']);
  });
});
