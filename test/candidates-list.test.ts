// The console's candidates list as a recruiter works it: columns that sort, numbered pages with
// the total, old "next page" links still working, and actions on the chosen rows (compare,
// export, decide, tag), each refused clearly and changing nothing on bad input.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachStore, QUICK_ASSESSMENT } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';
import { invite } from './support/portal.js';
import { takeWithLink } from './support/take.js';

const PEOPLE = 56;

describeEachStore('the candidates list', (ctx) => {
  let instance: string;
  let key: string;
  let manager: Awaited<ReturnType<typeof consoleAs>>;
  let reviewer: Awaited<ReturnType<typeof consoleAs>>;
  /** Candidate ids in the order they were invited. */
  const ids: string[] = [];

  before(async () => {
    instance = await ctx().instance('list');
    assert.equal((await ctx().publish(instance, QUICK_ASSESSMENT)).statusCode, 201);
    key = await ctx().key([instance]);
    for (let i = 0; i < PEOPLE; i++) {
      // Last names run backwards (Zz55 … Aa00-ish), so that name order is not invitation order.
      const last = `${String.fromCharCode(90 - (i % 26))}${String(i).padStart(2, '0')}`;
      const made = await invite(ctx(), { instance, key }, { email: `p${String(i).padStart(2, '0')}-${instance}@example.com`, firstName: 'Person', lastName: last }, ['quick']);
      ids.push(made.candidateId);
      // Three take it: the 4th and 6th right (100 %), the 5th wrong (0 %).
      if (i >= 3 && i <= 5) await takeWithLink(ctx(), made.link, undefined, [['q1', i === 4 ? 0 : 1]], { slug: 'quick' });
      // Invitations a second apart, so that "last invited" has one order.
      await ctx().db.query(`UPDATE invitations SET created_at = now() - make_interval(secs => $2) WHERE candidate_id = $1`, [made.candidateId, PEOPLE - i]);
    }
    const m = await consoleUser(ctx(), `manager-${instance}@example.com`, 'manager', [instance]);
    manager = await consoleAs(ctx(), `manager-${instance}@example.com`, m.password);
    const r = await consoleUser(ctx(), `reviewer-${instance}@example.com`, 'reviewer', [instance]);
    reviewer = await consoleAs(ctx(), `reviewer-${instance}@example.com`, r.password);
  });

  /** The candidate ids of a list page, in its order. */
  const rowsOf = (body: string) => [...body.matchAll(/name="ids" value="([^"]+)" form="bulk-form"/g)].map((m) => m[1]!);
  const list = (query: string) => manager.get(`/console/candidates?instance=${instance}&${query}`);

  it('opens on the newest invitation first, 50 to a page, numbered, with the total', async () => {
    const first = await list('');
    assert.equal(first.statusCode, 200);
    assert.deepEqual(rowsOf(first.body), ids.slice().reverse().slice(0, 50));
    assert.match(first.body, /Candidates 1–50 of 56/);
    assert.match(first.body, /<a href="[^"]*page=2" rel="next">Next<\/a>/);
    assert.match(
      first.body,
      /<th scope="col" aria-sort="descending"><a class="sort" href="[^"]*sort=invited&amp;page=1|<th scope="col" aria-sort="descending"><a class="sort" href="[^"]*sort=invited"/,
    );
    const second = await list('page=2');
    assert.deepEqual(rowsOf(second.body), ids.slice().reverse().slice(50));
    assert.match(second.body, /Candidates 51–56 of 56/);
    assert.match(second.body, /aria-current="page">2</);
    // Past the last page: said, with the way back.
    const past = await list('page=3');
    assert.equal(past.statusCode, 200);
    assert.match(past.body, /This page is past the last one/);
    // An old "next page" link (a keyset cursor, id order) still works.
    const byId = ids.slice().sort();
    const old = await list(`after=${byId[9]}`);
    assert.deepEqual(rowsOf(old.body), byId.slice(10, 56));
  });

  it('sorts by each column both ways, keeping the filters; missing values last', async () => {
    const names = rowsOf((await list('sort=name')).body);
    const expected = (await ctx().db.query<{ id: string }>(`SELECT id FROM candidates WHERE id = ANY($1::uuid[]) ORDER BY search_last, id LIMIT 50`, [ids])).rows.map((r) => r.id);
    assert.deepEqual(names, expected);
    const reversed = rowsOf((await list('sort=name-desc&page=2')).body);
    assert.equal(reversed.at(-1), expected[0], 'the first by name is the last of the other order');
    const scored = rowsOf((await list('sort=score-desc')).body).slice(0, 3);
    assert.deepEqual(new Set(scored.slice(0, 2)), new Set([ids[3], ids[5]]), '100 % first');
    assert.equal(scored[2], ids[4], 'then 0 %, then those without a score');
    const low = rowsOf((await list('sort=score&status=COMPLETED')).body);
    assert.deepEqual(low, [ids[4], ...[ids[3]!, ids[5]!].sort()], 'lowest first, the filter kept');
    const header = (await list('sort=score&status=COMPLETED')).body;
    assert.match(header, /<th scope="col" aria-sort="ascending"><a class="sort" href="[^"]*status=COMPLETED[^"]*sort=score-desc/);
    for (const bad of ['sort=age', 'sort=name-up', 'page=0', 'page=x', 'page=1000001']) {
      const refused = await list(bad);
      assert.equal(refused.statusCode, 400, bad);
    }
  });

  it('its count equals the pipeline of the overview', async () => {
    const overview = await manager.get(`/console/?instance=${instance}`);
    const completed = /href="([^"]*status=COMPLETED[^"]*)"[^>]*>(\d+)</.exec(overview.body.replaceAll('&amp;', '&'));
    assert.ok(completed, 'the pipeline links its completed count');
    const page = await manager.get(completed[1]!);
    assert.match(page.body, new RegExp(`Candidates 1–${completed[2]} of ${completed[2]}`));
  });

  const bulk = (who: typeof manager, fields: Record<string, string>) => who.post('/console/candidates/bulk', { instance, back: 'sort=name', ...fields });

  it('decides on the chosen candidates at once, each audited, and comes back to the list', async () => {
    const chosen = [ids[0]!, ids[1]!, ids[2]!];
    const done = await bulk(manager, { action: 'decide', ids: chosen.join(','), decision: 'hold', note: 'Second round in January' });
    assert.equal(done.statusCode, 303, done.body);
    assert.match(String(done.headers.location), /^\/console\/candidates\?sort=name&instance=[^&]+&done=decided%3A3%3Ahold$/);
    const page = await manager.get(String(done.headers.location));
    assert.match(page.body, /Hold: decided for 3 candidates\./);
    const { rows } = await ctx().db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM candidate_decisions WHERE candidate_id = ANY($1::uuid[]) AND decision = 'hold' AND note = 'Second round in January'`,
      [chosen],
    );
    assert.equal(rows[0]!.n, 3);
    const audited = await ctx().db.query(`SELECT 1 FROM audit_log WHERE action = 'candidate.decision.hold' AND target = ANY($1)`, [chosen.map((id) => `${instance}/${id}`)]);
    assert.equal(audited.rows.length, 3, 'one entry per candidate');
    assert.deepEqual(rowsOf((await list('decision=hold')).body).sort(), chosen.slice().sort());
  });

  it('adds a tag beside the tags the chosen have, as typed', async () => {
    assert.equal((await manager.post(`/console/candidates/${ids[6]}/marks`, { instance, decision: '', tags: 'Python' })).statusCode, 303);
    const done = await bulk(manager, { action: 'tag', ids: `${ids[6]},${ids[7]}`, tag: 'Round 2' });
    assert.equal(done.statusCode, 303, done.body);
    const tags = async (id: string) =>
      ((await ctx().request({ method: 'GET', url: `/v1/candidates/${id}`, headers: { 'x-api-key': key, instance } })).json() as { tags: string[] }).tags;
    assert.deepEqual(await tags(ids[6]!), ['Python', 'Round 2']);
    assert.deepEqual(await tags(ids[7]!), ['Round 2']);
    assert.match((await manager.get(String(done.headers.location))).body, /Tag added to 2 candidates\./);
  });

  it('compares and exports the chosen ones', async () => {
    const compare = await bulk(reviewer, { action: 'compare', ids: `${ids[3]},${ids[4]}`, assessment: 'quick' });
    assert.equal(compare.statusCode, 303, compare.body);
    const page = await reviewer.get(String(compare.headers.location));
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<th scope="row">Total score<\/th><td>100 %<\/td><td>0 %<\/td>/);
    // The page offers the others who completed it (only the sixth here), best first, and no Remove at two.
    const offered = [.../<select id="compare-add" name="ids">(.*?)<\/select>/s.exec(page.body)![1]!.matchAll(/<option value="([^"]+)">([^<]*)<\/option>/g)];
    assert.deepEqual(
      offered.map((m) => m[1]),
      [ids[5]],
    );
    assert.match(offered[0]![2]!, /Person [A-Z]05 \(100 %\)/);
    assert.doesNotMatch(page.body, /class="remove"/, 'two is the fewest to compare');
    const three = await reviewer.get(`/console/compare?instance=${instance}&assessment=quick&ids=${ids[3]}&ids=${ids[4]}&ids=${ids[5]}`);
    assert.equal(three.statusCode, 200);
    assert.match(three.body, /<th scope="row">Total score<\/th><td>100 %<\/td><td>0 %<\/td><td>100 %<\/td>/);
    assert.doesNotMatch(three.body, /id="compare-add"/, 'nobody else completed it');
    const removeHref = new RegExp(`<a class="remove" href="([^"]+)">Remove<span class="visually-hidden"> Person [A-Z]04`).exec(three.body)![1]!.replace(/&amp;/g, '&');
    assert.ok(!removeHref.includes(ids[4]!) && removeHref.includes(ids[3]!) && removeHref.includes(ids[5]!), removeHref);
    const csv = await bulk(reviewer, { action: 'export', ids: `${ids[3]},${ids[4]}` });
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    assert.match(String(csv.headers['content-disposition']), /attachment; filename="candidates-list[^"]*-chosen\.csv"/);
    const lines = csv.body.trim().split('\r\n');
    assert.equal(lines.length, 3, 'the header and the two chosen');
    assert.ok(lines[1]!.includes(ids[3]!) || lines[2]!.includes(ids[3]!));
  });

  it('refuses what it cannot do, names why beside the form, and changes nothing', async () => {
    const before = await ctx().db.query(`SELECT candidate_id, decision FROM candidate_decisions ORDER BY candidate_id`);
    const none = await bulk(manager, { action: 'decide', decision: 'advance' });
    assert.equal(none.statusCode, 400);
    assert.match(none.body, /class="error-summary"[\s\S]*chooses no candidate: tick at least one/);
    const badDecision = await bulk(manager, { action: 'decide', ids: ids[8]!, decision: 'maybe' });
    assert.equal(badDecision.statusCode, 400);
    assert.match(badDecision.body, /must be one of advance, hold, reject/);
    const many = Array.from({ length: 101 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    assert.match((await bulk(manager, { action: 'decide', ids: many.join(','), decision: 'advance' })).body, /at most 100 at once/);
    assert.match((await bulk(manager, { action: 'decide', ids: `${ids[8]},nonsense`, decision: 'advance' })).body, /&quot;nonsense&quot; is not a candidate id/);
    // One of another instance among the chosen: none is decided.
    const elsewhere = await ctx().instance('other');
    const otherKey = await ctx().key([elsewhere]);
    await ctx().publish(elsewhere, QUICK_ASSESSMENT);
    const stranger = (await invite(ctx(), { instance: elsewhere, key: otherKey }, { email: 's@example.com', firstName: 'S', lastName: 'T' }, ['quick'])).candidateId;
    assert.equal((await bulk(manager, { action: 'decide', ids: `${ids[8]},${stranger}`, decision: 'reject' })).statusCode, 404);
    assert.match((await bulk(manager, { action: 'tag', ids: ids[8]!, tag: '<b>' })).body, /is not a tag/);
    assert.match((await bulk(manager, { action: 'tag', ids: ids[8]!, tag: ' ' })).body, /is empty: type the tag to add/);
    assert.match((await bulk(manager, { action: 'compare', ids: ids[8]! })).body, /tick 2 to 10 candidates to compare/);
    assert.equal((await bulk(manager, { action: 'explode', ids: ids[8]! })).statusCode, 400);
    // Reviewers compare and export; they do not decide or tag.
    assert.equal((await bulk(reviewer, { action: 'decide', ids: ids[8]!, decision: 'advance' })).statusCode, 403);
    assert.equal((await bulk(reviewer, { action: 'tag', ids: ids[8]!, tag: 'x' })).statusCode, 403);
    // Without the form's CSRF token.
    assert.equal((await bulk(manager, { action: 'decide', ids: ids[8]!, decision: 'advance', _csrf: 'forged' })).statusCode, 403);
    const after = await ctx().db.query(`SELECT candidate_id, decision FROM candidate_decisions ORDER BY candidate_id`);
    assert.deepEqual(after.rows, before.rows);
    const tags = await ctx().db.query(`SELECT 1 FROM candidate_tags WHERE candidate_id = $1`, [ids[8]]);
    assert.equal(tags.rows.length, 0);
  });
});
