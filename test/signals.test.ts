// Proctoring signals are bounded per attempt: a page (or a script posing as one) that reports
// hundreds of signals has every one counted toward the red flag, but only the first ones stored
// and listed, so the report stays small and a signal's work does not grow with how many came before.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { MAX_STORED_SIGNALS } from '../src/modules/attempts/signals.js';
import { describeEachStore, QUICK_ASSESSMENT } from './harness.js';
import { candidate as portalCandidate } from './support/portal.js';

describeEachStore('proctoring signals, bounded', (ctx) => {
  it('counts every signal, stores the first ones, and reports the rest as counts', async () => {
    const instance = await ctx().instance('signals');
    assert.equal((await ctx().publish(instance, QUICK_ASSESSMENT)).statusCode, 201);
    const key = await ctx().key([instance], { rateLimit: 100000 });
    const { candidateId, form, post } = await portalCandidate(ctx(), { instance, key }, { email: 'many@signals.example', firstName: 'Ma', lastName: 'Ny' }, ['quick']);
    assert.equal((await form('/portal/a/quick/start')).statusCode, 303);

    const sent = MAX_STORED_SIGNALS + 150;
    for (let i = 0; i < sent; i++) {
      const kind = i % 2 === 0 ? 'paste' : 'page-hidden';
      const answered = await post('/portal/api/a/quick/signals', { kind, detail: `${i}` });
      assert.equal(answered.statusCode, 204);
    }
    const { rows } = await ctx().db.query<{ stored: number; counts: Record<string, number> }>(
      `SELECT (SELECT count(*)::int FROM proctor_signals p WHERE p.attempt_id = a.id) AS stored, a.signal_counts AS counts
         FROM attempts a JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1`,
      [candidateId],
    );
    assert.equal(rows[0]!.stored, MAX_STORED_SIGNALS, 'only the first ones are stored');
    assert.deepEqual(rows[0]!.counts, { paste: sent / 2, 'page-hidden': sent / 2 }, 'every one is counted');

    const attempts = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/candidates/${candidateId}/attempts` })).json();
    assert.equal(attempts[0].signals.length, MAX_STORED_SIGNALS);
    assert.deepEqual(attempts[0].redFlagReasons, [`pasted ${sent / 2} times`, `left the page ${sent / 2} times`], 'the red flag is judged on every signal');
    const score = (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': key } })).json();
    assert.equal(score[0].redFlag, true);

    const candidate = (await ctx().request({ method: 'GET', url: `/v1/candidates/${candidateId}`, headers: { 'x-api-key': key } })).json();
    const report = await ctx().request({ method: 'GET', url: new URL(candidate.invitations[0].reportUrl).pathname + new URL(candidate.invitations[0].reportUrl).search });
    assert.equal(report.statusCode, 200);
    assert.match(report.body, new RegExp(`Only the first ${MAX_STORED_SIGNALS} signals are kept one by one; after them the page reported 75 × page-hidden, 75 × paste more`));
    assert.ok(report.body.length < 200_000, `the report stays small (${report.body.length} characters)`);
  });
});
