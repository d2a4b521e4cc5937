// A recruiter's decision (advance, hold, reject) with a note, and tags, per candidate: set on the
// candidate's page by owners and managers (not reviewers), filtered on and exported (CSV, with
// formulas made inert) in the list, shown to clients in GET /v1/candidates/{id}, audited, in the
// candidate's data export, and gone with their erasure. Bad input changes nothing.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { describeEachStore, QUICK_ASSESSMENT, sampleAssessment } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';
import { candidate, invite } from './support/portal.js';

describeEachStore('decisions and tags', (ctx) => {
  let instance: string;
  let key: string;
  let manager: Awaited<ReturnType<typeof consoleAs>>;
  let reviewer: Awaited<ReturnType<typeof consoleAs>>;
  const ids: Record<string, string> = {};

  before(async () => {
    instance = await ctx().instance('decide');
    assert.equal((await ctx().publish(instance, sampleAssessment('alpha'))).statusCode, 201);
    key = await ctx().key([instance]);
    for (const [name, first] of [
      ['ada', 'Ada'],
      ['bob', 'Bob'],
      ['eve', '=HYPERLINK("http://evil.example")'],
    ] as const) {
      ids[name] = (await invite(ctx(), { instance, key }, { email: `${name}-${instance}@example.com`, firstName: first, lastName: 'Tester' }, ['alpha'])).candidateId;
    }
    const m = await consoleUser(ctx(), `manager-${instance}@example.com`, 'manager', [instance]);
    manager = await consoleAs(ctx(), `manager-${instance}@example.com`, m.password);
    const r = await consoleUser(ctx(), `reviewer-${instance}@example.com`, 'reviewer', [instance]);
    reviewer = await consoleAs(ctx(), `reviewer-${instance}@example.com`, r.password);
  });

  const mark = (who: typeof manager, name: string, fields: Record<string, string>) => who.post(`/console/candidates/${ids[name]}/marks`, { instance, ...fields });
  const candidate = async (name: string) =>
    (await ctx().request({ method: 'GET', url: `/v1/candidates/${ids[name]}`, headers: { 'x-api-key': key, instance } })).json() as {
      decision: { value: string; note: string | null; decidedAt: string } | null;
      tags: string[];
    };

  it('a manager decides and tags on the candidate page; clients see it; the audit log keeps it', async () => {
    assert.deepEqual(await candidate('ada'), { ...(await candidate('ada')), decision: null, tags: [] });
    const saved = await mark(manager, 'ada', { decision: 'advance', note: 'Strong case study.', tags: 'Shortlist, python dev, shortlist' });
    assert.equal(saved.statusCode, 303, saved.body);
    const page = await manager.get(`/console/candidates/${ids.ada}?instance=${instance}&marked=1`);
    assert.match(page.body, /<strong>Advance<\/strong> by manager-decide/);
    assert.match(page.body, /Strong case study\./);
    // Tags keep what was typed ("python dev", "Shortlist"), compared case-insensitively: "shortlist" is the same tag again.
    assert.match(page.body, /<span class="tag">python dev<\/span>, <span class="tag">Shortlist<\/span>/);
    const seen = await candidate('ada');
    assert.equal(seen.decision?.value, 'advance');
    assert.equal(seen.decision?.note, 'Strong case study.');
    assert.deepEqual(seen.tags, ['python dev', 'Shortlist']);
    assert.equal((await mark(manager, 'bob', { decision: 'reject', note: '', tags: 'shortlist' })).statusCode, 303);
    // A tag stored before tags kept their labels (no label) is shown as its key.
    await ctx().db.query(`UPDATE candidate_tags SET label = NULL WHERE candidate_id = $1`, [ids.bob]);
    assert.deepEqual((await candidate('bob')).tags, ['shortlist']);
    // Changing it: the latest stands; "None" clears the decision and its note.
    assert.equal((await mark(manager, 'bob', { decision: 'hold', note: 'Waiting for references', tags: '' })).statusCode, 303);
    assert.deepEqual([(await candidate('bob')).decision?.value, (await candidate('bob')).tags], ['hold', []]);
    const actions = (await ctx().db.query<{ action: string }>(`SELECT action FROM audit_log WHERE target = $1 ORDER BY id`, [`${instance}/${ids.bob}`])).rows.map((r) => r.action);
    assert.deepEqual(actions, ['candidate.decision.reject', 'candidate.tags', 'candidate.decision.hold', 'candidate.tags']);
  });

  it('a reviewer sees the decision but may not decide; bad input is named and changes nothing', async () => {
    const page = await reviewer.get(`/console/candidates/${ids.ada}?instance=${instance}`);
    assert.match(page.body, /<strong>Advance<\/strong>/);
    assert.doesNotMatch(page.body, /marks-form/);
    assert.equal((await mark(reviewer, 'ada', { decision: 'reject', tags: '' })).statusCode, 403);
    const badTag = await mark(manager, 'ada', { decision: 'reject', tags: 'ok, <script>, also ok' });
    assert.equal(badTag.statusCode, 400);
    assert.match(badTag.body, /&quot;&lt;script&gt;&quot; is not a tag/);
    const badDecision = await mark(manager, 'ada', { decision: 'maybe', tags: '' });
    assert.equal(badDecision.statusCode, 400);
    assert.match(badDecision.body, /must be one of advance, hold, reject/);
    const longNote = await mark(manager, 'ada', { decision: 'reject', note: 'x'.repeat(2001), tags: '' });
    assert.equal(longNote.statusCode, 400);
    assert.equal((await mark(manager, 'ada', { decision: 'reject', note: 'a\u202Eb', tags: '' })).statusCode, 400);
    assert.equal((await mark(manager, 'ada', { decision: 'hold', tags: Array.from({ length: 21 }, (_, i) => `t${i}`).join(',') })).statusCode, 400);
    const unknown = await manager.post(`/console/candidates/00000000-0000-4000-8000-000000000000/marks`, { instance, decision: 'hold', tags: '' });
    assert.equal(unknown.statusCode, 404);
    const seen = await candidate('ada');
    assert.equal(seen.decision?.value, 'advance');
    assert.deepEqual(seen.tags, ['python dev', 'Shortlist']);
  });

  it("the candidate's header decides alone (the note in its own form) and the panel tags alone; each leaves the other as it was", async () => {
    const page = await manager.get(`/console/candidates/${ids.bob}?instance=${instance}`);
    for (const d of ['advance', 'hold', 'reject']) {
      assert.match(page.body, new RegExp(`<button type="button" popovertarget="decide-${d}"`));
      assert.match(page.body, new RegExp(`<div id="decide-${d}" class="decide-panel" popover role="dialog"`));
    }
    assert.match(page.body, /<button type="button" popovertarget="decide-hold" class="decide-hold" aria-pressed="true">Hold<\/button>/, 'the decision given is pressed');
    assert.match(page.body, /<p class="candidate-marks"><span class="badge decision-hold">Hold<\/span>/);
    assert.match(page.body, /<a class="button" href="\/console\/candidates\?instance=[^&"]+&amp;assessment=alpha&amp;chosen=[0-9a-f-]+">Compare<\/a>/);
    const tagsBefore = (await candidate('bob')).tags;
    const decided = await mark(manager, 'bob', {});
    assert.equal(decided.statusCode, 303, 'the combined form of earlier versions still answers');
    assert.equal((await manager.post(`/console/candidates/${ids.bob}/tags`, { instance, tags: 'Backend, On site' })).statusCode, 303);
    assert.equal((await manager.post(`/console/candidates/${ids.bob}/decision`, { instance, decision: 'advance', note: 'Great pairing session' })).statusCode, 303);
    const seen = await candidate('bob');
    assert.deepEqual([seen.decision?.value, seen.decision?.note, seen.tags], ['advance', 'Great pairing session', ['Backend', 'On site']]);
    assert.notDeepEqual(tagsBefore, seen.tags);
    const decidedAt = seen.decision!.decidedAt;
    assert.equal((await manager.post(`/console/candidates/${ids.bob}/tags`, { instance, tags: 'Backend' })).statusCode, 303);
    assert.equal((await candidate('bob')).decision?.decidedAt, decidedAt, 'saving tags does not decide again');
    // A refused note comes back in its own form, open in the page, the error beside it; nothing changes.
    const refused = await manager.post(`/console/candidates/${ids.bob}/decision`, { instance, decision: 'reject', note: 'x'.repeat(2001) });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /<div id="decide-reject" class="decide-panel" role="group"/);
    assert.match(refused.body, /<p class="field-error" id="decide-reject-note-error">is 2001 characters; at most 2000<\/p>/);
    assert.match(refused.body, /aria-invalid="true" aria-describedby="decide-reject-note-error"/);
    assert.equal((await candidate('bob')).decision?.value, 'advance');
    const badTags = await manager.post(`/console/candidates/${ids.bob}/tags`, { instance, tags: '<x>' });
    assert.equal(badTags.statusCode, 400);
    assert.match(badTags.body, /<p class="field-error" id="marks-tags-error">&quot;&lt;x&gt;&quot; is not a tag/);
    assert.equal((await manager.post(`/console/candidates/${ids.bob}/decision`, { instance, decision: 'maybe' })).statusCode, 400);
    // Clear: no decision, the tags kept.
    assert.equal((await manager.post(`/console/candidates/${ids.bob}/decision`, { instance, decision: '' })).statusCode, 303);
    assert.deepEqual([(await candidate('bob')).decision, (await candidate('bob')).tags], [null, ['Backend']]);
    // Reviewers see the decision, not the buttons; they may not post either form.
    const seenByReviewer = await reviewer.get(`/console/candidates/${ids.bob}?instance=${instance}`);
    assert.doesNotMatch(seenByReviewer.body, /popovertarget="decide-/);
    assert.equal((await reviewer.post(`/console/candidates/${ids.bob}/decision`, { instance, decision: 'advance' })).statusCode, 403);
    assert.equal((await reviewer.post(`/console/candidates/${ids.bob}/tags`, { instance, tags: 'x' })).statusCode, 403);
    // Compare from the page: the list of the same assessment with this candidate ticked.
    const compare = /href="(\/console\/candidates\?[^"]+chosen=[^"]+)">Compare</.exec(page.body)![1]!.replaceAll('&amp;', '&');
    const list = await manager.get(compare);
    assert.match(list.body, new RegExp(`value="${ids.bob}" form="bulk-form" aria-label="Choose Bob Tester" checked`));
    assert.match(list.body, /Bob Tester is chosen: tick the others to compare with, then Compare\./);
    assert.equal((await manager.get(`/console/candidates?instance=${instance}&chosen=nope`)).statusCode, 400);
    await mark(manager, 'bob', { decision: 'hold', note: 'Waiting for references', tags: '' });
  });

  it('the list filters by decision and tag, and exports them as CSV with formulas made inert', async () => {
    const list = async (query: string) => (await manager.get(`/console/candidates?instance=${instance}&${query}`)).body;
    const advanced = await list('decision=advance');
    assert.match(advanced, /Ada Tester/);
    assert.doesNotMatch(advanced, /Bob Tester/);
    assert.match(await list('decision=hold'), /Bob Tester/);
    const none = await list('decision=none');
    assert.match(none, /HYPERLINK/);
    assert.doesNotMatch(none, /Ada Tester|Bob Tester/);
    assert.match(await list('tag=shortlist'), /Ada Tester/);
    // A tag is found whatever its case and spacing: "Python  Dev" is "python dev".
    assert.match(await list('tag=Python%20%20Dev'), /Ada Tester/);
    assert.doesNotMatch(await list('tag=python'), /Ada Tester/);
    assert.equal((await manager.get(`/console/candidates?instance=${instance}&decision=maybe`)).statusCode, 400);
    assert.match(await list(''), /<option value="python dev">python dev<\/option>/);

    const csv = await manager.get(`/console/candidates.csv?instance=${instance}`);
    assert.equal(csv.statusCode, 200);
    assert.match(String(csv.headers['content-type']), /^text\/csv/);
    const lines = csv.body
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n');
    assert.equal(lines.length, 4);
    assert.match(lines[0]!, /"decision","note","tags"/);
    const ada = lines.find((l) => l.includes(ids.ada!))!;
    assert.match(ada, /"advance","Strong case study\.","python dev; Shortlist","alpha"/);
    // A name a spreadsheet would run as a formula is written as text.
    assert.match(csv.body, /"'=HYPERLINK\(""http:\/\/evil\.example""\)"/);
    const filtered = await manager.get(`/console/candidates.csv?instance=${instance}&decision=hold`);
    assert.equal(filtered.body.trim().split('\r\n').length, 2);
  });

  it('the data export holds the marks, and erasure removes them', async () => {
    const exported = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/export`, payload: { candidateId: ids.ada } });
    assert.equal(exported.statusCode, 200, exported.body);
    assert.deepEqual((exported.json() as { marks: { tags: string[] } }).marks.tags, ['python dev', 'Shortlist']);
    const erased = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/erase`, payload: { candidateId: ids.ada } });
    assert.equal(erased.statusCode, 200, erased.body);
    assert.deepEqual(await candidate('ada'), { ...(await candidate('ada')), decision: null, tags: [] });
    const left = await ctx().db.query(`SELECT 1 FROM candidate_decisions WHERE candidate_id = $1 UNION ALL SELECT 1 FROM candidate_tags WHERE candidate_id = $1`, [ids.ada]);
    assert.equal(left.rows.length, 0);
    // An erased candidate cannot be marked again (nothing more is kept about them).
    assert.equal((await mark(manager, 'ada', { decision: 'hold', tags: '' })).statusCode, 400);
  });
});

describeEachStore('comparing candidates', (ctx) => {
  let instance: string;
  let key: string;
  let reviewer: Awaited<ReturnType<typeof consoleAs>>;
  const ids: string[] = [];

  /** A candidate who takes the one-question check, right or wrong. */
  const take = async (name: string, right: boolean) => {
    const made = await candidate(ctx(), { instance, key }, { email: `${name}-${instance}@example.com`, firstName: name, lastName: 'Compared' }, ['quick', 'alpha']);
    assert.equal((await made.form('/portal/a/quick/start')).statusCode, 303);
    const saved = await made.save('q1', right ? 1 : 0);
    assert.equal(saved.statusCode, 204, saved.body);
    assert.equal((await made.form('/portal/a/quick/submit')).statusCode, 303);
    ids.push(made.candidateId);
  };

  before(async () => {
    instance = await ctx().instance('compare');
    assert.equal((await ctx().publish(instance, QUICK_ASSESSMENT)).statusCode, 201);
    assert.equal((await ctx().publish(instance, sampleAssessment('alpha'))).statusCode, 201);
    key = await ctx().key([instance]);
    await take('Right', true);
    await take('Wrong', false);
    const r = await consoleUser(ctx(), `reviewer-${instance}@example.com`, 'reviewer', [instance]);
    reviewer = await consoleAs(ctx(), `reviewer-${instance}@example.com`, r.password);
  });

  it('shows the chosen candidates side by side on one scale, from the list', async () => {
    const list = await reviewer.get(`/console/candidates?instance=${instance}&assessment=quick`);
    assert.match(list.body, /<form id="bulk-form" method="post" action="\/console\/candidates\/bulk"/);
    assert.match(list.body, /name="ids" value="[^"]+" form="bulk-form"/);
    assert.match(list.body, /<button type="submit" name="action" value="compare">Compare<\/button>/);
    const page = await reviewer.get(`/console/compare?instance=${instance}&assessment=quick&ids=${ids[0]}&ids=${ids[1]}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<h1>Compare candidates: Quick check<\/h1>/);
    assert.match(page.body, /<th scope="row">Total score<\/th><td>100 %<\/td><td>0 %<\/td>/);
    assert.match(page.body, /<th scope="row">Result<\/th><td>Pass<\/td><td>Fail<\/td>/);
    assert.match(page.body, /aria-label="Quick check: total score \(scale 0 to 100 %\): Right Compared: 100 %; Wrong Compared: 0 %"/);
    // Without an assessment chosen: the one most of them took (both took both; the first listed), and a way to switch.
    const other = await reviewer.get(`/console/compare?instance=${instance}&ids=${ids.join(',')}&assessment=alpha`);
    assert.match(other.body, /<td>not started<\/td><td>not started<\/td>/);
    assert.match(other.body, /<option value="quick">Quick check<\/option>/);
  });

  it('refuses one candidate, more than ten, an id that is not a candidate of the instance, and an unknown assessment', async () => {
    const compare = (query: string) => reviewer.get(`/console/compare?instance=${instance}&${query}`);
    assert.equal((await compare(`ids=${ids[0]}`)).statusCode, 400);
    assert.match((await compare(`ids=${ids[0]}`)).body, /choose 2 to 10 candidates/);
    const eleven = Array.from({ length: 11 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`);
    assert.equal((await compare(`ids=${eleven.join(',')}`)).statusCode, 400);
    assert.equal((await compare(`ids=${ids[0]},not-an-id`)).statusCode, 400);
    assert.equal((await compare(`ids=${ids[0]},00000000-0000-4000-8000-000000000000`)).statusCode, 400);
    assert.equal((await compare(`ids=${ids.join(',')}&assessment=nope`)).statusCode, 400);
  });
});

describeEachStore('saved searches', (ctx) => {
  let instance: string;
  let manager: Awaited<ReturnType<typeof consoleAs>>;
  let other: Awaited<ReturnType<typeof consoleAs>>;

  before(async () => {
    instance = await ctx().instance('saved');
    const m = await consoleUser(ctx(), `m-${instance}@example.com`, 'manager', [instance]);
    manager = await consoleAs(ctx(), `m-${instance}@example.com`, m.password);
    const o = await consoleUser(ctx(), `o-${instance}@example.com`, 'reviewer', [instance]);
    other = await consoleAs(ctx(), `o-${instance}@example.com`, o.password);
  });

  it('saves the filters shown under a name, lists them as links for their owner only, replaces by name, and deletes', async () => {
    const list = await manager.get(`/console/candidates?instance=${instance}&status=COMPLETED&flag=yes`);
    assert.match(list.body, /<input type="hidden" name="status" value="COMPLETED"><input type="hidden" name="flag" value="yes">/);
    const saved = await manager.post('/console/searches', { instance, name: 'Flagged <finishers>', status: 'COMPLETED', flag: 'yes', after: 'ignored', _bogus: 'x' });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `/console/candidates?instance=${instance}&status=COMPLETED&flag=yes`);
    const shown = (await manager.get(`/console/candidates?instance=${instance}`)).body;
    assert.match(shown, new RegExp(`<a href="/console/candidates\\?instance=${instance}&amp;status=COMPLETED&amp;flag=yes">Flagged &lt;finishers&gt;</a>`));
    assert.doesNotMatch((await other.get(`/console/candidates?instance=${instance}`)).body, /Flagged/);
    // The same name again replaces it.
    assert.equal((await manager.post('/console/searches', { instance, name: 'flagged <FINISHERS>', score: 'FAIL' })).statusCode, 303);
    const rows = await ctx().db.query<{ id: string; query: string }>(`SELECT s.id::text, s.query FROM saved_searches s JOIN users u ON u.id = s.user_id WHERE u.email = $1`, [
      `m-${instance}@example.com`,
    ]);
    assert.deepEqual(
      rows.rows.map((r) => r.query),
      ['score=FAIL'],
    );
    // Bad input: no name, no filter, a control character; another's search cannot be deleted.
    // The list comes back with its filters, the refusal beside the name, and the name as typed.
    const count = async () => (await ctx().db.query(`SELECT count(*)::int AS n FROM saved_searches`)).rows[0]!.n as number;
    const before = await count();
    const unnamed = await manager.post('/console/searches', { instance, name: '', score: 'FAIL' });
    assert.equal(unnamed.statusCode, 400);
    assert.match(
      unnamed.body,
      /<div class="error-summary" role="alert" id="saved-errors"><p class="error">The search was not saved:<\/p><ul><li><a href="#saved-name">name<\/a> must be 1-60 characters/,
    );
    assert.match(unnamed.body, /id="saved-name" name="name"[^>]*aria-invalid="true" aria-describedby="saved-name-error">/);
    assert.match(unnamed.body, /<input type="hidden" name="score" value="FAIL">/, 'the filters stay');
    const nothing = await manager.post('/console/searches', { instance, name: 'Nothing' });
    assert.equal(nothing.statusCode, 400);
    assert.match(nothing.body, /<code>filters<\/code> a saved search needs at least one filter/);
    const bidi = await manager.post('/console/searches', { instance, name: 'a\u202Eb', score: 'FAIL' });
    assert.equal(bidi.statusCode, 400);
    assert.match(bidi.body, /<p class="field-error" id="saved-name-error">must not contain control or bidirectional override characters<\/p>/);
    assert.equal(await count(), before, 'nothing saved');
    assert.equal((await other.post(`/console/searches/${rows.rows[0]!.id}/delete`, { instance })).statusCode, 404);
    assert.equal((await manager.post(`/console/searches/${rows.rows[0]!.id}/delete`, { instance })).statusCode, 303);
    assert.equal((await ctx().db.query(`SELECT 1 FROM saved_searches WHERE id = $1`, [rows.rows[0]!.id])).rows.length, 0);
  });
});
