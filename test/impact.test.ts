// Adverse-impact evidence on both stores: the voluntary self-identification form after submitting
// (optional: skipping it changes nothing; it stores, a second submission replaces the first, bad
// values are refused and change nothing); its answers never reach reports, GET /v1/score,
// GET /v1/candidates/{id} or webhook payloads; erasure and the retention sweep delete them and the
// data export lists them; a seeded data set where one group passes at 40 % and another at 70 %
// shows the four-fifths flag (ratio 0.57) on the page and in the CSV, small groups are marked,
// LOW_PASS counts as selected only when chosen; reviewers are refused; the settings are validated
// in the admin API and the console, and the form can be turned off. The app's clock is frozen.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { runCommand } from '../src/domain/command.js';
import { recordSelfId } from '../src/modules/equality/commands.js';
import { sweepRetention } from '../src/modules/privacy/service.js';
import { describeEachStore, type TestContext } from './harness.js';
import { frozenClock } from './support/clock.js';
import { consoleAs, consoleUser } from './support/console.js';
import { candidate as portalCandidate } from './support/portal.js';

const DAY = 24 * 60 * 60 * 1000;
const clock = frozenClock();
const today = () => new Date(clock.at).toISOString().slice(0, 10);

/** Three questions, one point each: 3 right is PASS (100), 2 right LOW_PASS (66.67), fewer FAIL. */
const SCREEN = `id: screen
name: Screening check
description: Three questions.
durationMinutes: 10
passScore: 70
lowPassScore: 50
categories:
  - id: reasoning
    name: Reasoning
questions:
${[1, 2, 3]
  .map(
    (n) => `  - id: q${n}
    type: single-choice
    category: reasoning
    prompt: Is ${n} a number?
    options:
      - text: "No"
      - text: "Yes"
        correct: true
`,
  )
  .join('')}`;

type Result = 'PASS' | 'LOW_PASS' | 'FAIL';
const RIGHT: Record<Result, number> = { PASS: 3, LOW_PASS: 2, FAIL: 0 };

/** A candidate in the portal, invited to `screen`: their session, and helpers to take it and to answer the voluntary questions. */
async function candidate(ctx: TestContext, instance: string, key: string, email: string) {
  const c = await portalCandidate(ctx, { instance, key }, { email, firstName: 'Sam', lastName: 'Tester' }, ['screen']);
  return {
    id: c.candidateId,
    page: (url = '/portal/a/screen') => c.get(url),
    start: () => c.form('/portal/a/screen/start'),
    async take(result: Result) {
      assert.equal((await c.form('/portal/a/screen/start')).statusCode, 303);
      for (let n = 1; n <= 3; n++) {
        const saved = await c.save(`q${n}`, n <= RIGHT[result] ? 1 : 0);
        assert.equal(saved.statusCode, 204, saved.body);
      }
      assert.equal((await c.form('/portal/a/screen/submit')).statusCode, 303);
    },
    /** Posts the form: question id to option id (a raw query string for repeated fields). */
    selfId: (answers: Record<string, string> | string) =>
      c.form(
        '/portal/a/screen/self-id',
        typeof answers === 'string' ? [...new URLSearchParams(answers)] : Object.entries(answers).map(([q, o]): [string, string] => [`q.${q}`, o]),
      ),
  };
}
type Candidate = Awaited<ReturnType<typeof candidate>>;

describeEachStore(
  'adverse impact and voluntary self-identification',
  (ctx) => {
    let instance: string;
    let key: string;
    let seq = 0;
    let manager: Awaited<ReturnType<typeof consoleAs>>;
    let reviewer: Awaited<ReturnType<typeof consoleAs>>;
    let ada: Candidate;
    const person = (inst = instance, k = key) => candidate(ctx(), inst, k, `person-${++seq}-${inst}@example.com`);
    const stored = async (candidateId: string) =>
      (
        await ctx().db.query<{ answers: Record<string, string> }>(
          `SELECT s.answers FROM self_identifications s JOIN invitations i ON i.id = s.invitation_id WHERE i.candidate_id = $1`,
          [candidateId],
        )
      ).rows.map((r) => r.answers);
    const score = async (candidateId: string) =>
      (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${candidateId}`, headers: { 'x-api-key': key, instance } })).json() as unknown;

    before(async () => {
      instance = await ctx().instance('impact');
      assert.equal((await ctx().publish(instance, SCREEN)).statusCode, 201);
      key = await ctx().key([instance]);
      const m = await consoleUser(ctx(), `manager-${instance}@example.com`, 'manager', [instance]);
      manager = await consoleAs(ctx(), `manager-${instance}@example.com`, m.password);
      const r = await consoleUser(ctx(), `reviewer-${instance}@example.com`, 'reviewer', [instance]);
      reviewer = await consoleAs(ctx(), `reviewer-${instance}@example.com`, r.password);
    });

    it('the form appears only after submitting, says it is optional, and skipping it changes nothing', async () => {
      ada = await person();
      assert.equal((await ada.start()).statusCode, 303);
      const during = await ada.page();
      assert.doesNotMatch(during.body, /self-id/);
      const early = await ada.selfId({ sex: 'female' });
      assert.equal(early.statusCode, 409);
      assert.match(early.body, /offered once the assessment is submitted/);
      assert.deepEqual(await stored(ada.id), []);
    });

    it('stores the answers; a second submission replaces the first; the score is untouched', async () => {
      const bea = await person();
      await bea.take('PASS');
      const page = await bea.page();
      assert.match(page.body, /This is optional and does not affect your result; reviewers never see it\./);
      assert.match(page.body, /<form method="post" action="\/portal\/a\/screen\/self-id"/);
      assert.equal(page.body.match(/Prefer not to say/g)?.length, 3, 'offered on every question');
      assert.doesNotMatch(page.body, /type="radio"[^>]*name="q\.[^"]+"[^>]* checked/, 'nothing preselected');
      for (const label of ['Female', 'Black or African American', 'Native Hawaiian or Other Pacific Islander', 'Two or more races', '40 or older', 'Under 40'])
        assert.ok(page.body.includes(label), label);
      // Skipping: nothing stored, the score as it was.
      const before = await score(bea.id);
      assert.deepEqual(await stored(bea.id), []);

      const saved = await bea.selfId({ sex: 'female', 'race-ethnicity': 'asian', 'age-band': 'prefer-not-to-say' });
      assert.equal(saved.statusCode, 303, saved.body);
      assert.equal(saved.headers.location, '/portal/a/screen?self-id=saved#self-id');
      assert.deepEqual(await stored(bea.id), [{ sex: 'female', 'race-ethnicity': 'asian', 'age-band': 'prefer-not-to-say' }]);
      const again = await bea.page('/portal/a/screen?self-id=saved');
      assert.match(again.body, /Your answers were saved/);
      assert.match(again.body, /name="q\.sex" value="female" checked/);

      assert.equal((await bea.selfId({ sex: 'male', 'race-ethnicity': '' })).statusCode, 303);
      assert.deepEqual(await stored(bea.id), [{ sex: 'male' }], 'replaced, not merged');
      assert.deepEqual(await score(bea.id), before);
      // Nothing at all given removes them.
      assert.equal((await bea.selfId({})).statusCode, 303);
      assert.deepEqual(await stored(bea.id), []);
    });

    it('bad values are refused with a clear error and change nothing', async () => {
      const cal = await person();
      await cal.take('FAIL');
      assert.equal((await cal.selfId({ sex: 'another' })).statusCode, 303);
      for (const bad of [{ sex: 'robot' }, { 'age-band': '<script>' }, { height: 'tall' }, 'q.sex=female&q.sex=male'] as (Record<string, string> | string)[]) {
        const refused = await cal.selfId(bad);
        assert.equal(refused.statusCode, 400, JSON.stringify(bad));
        assert.match(refused.body, /One of the choices was not valid, so nothing was saved/);
        assert.doesNotMatch(refused.body, /<script>/);
      }
      assert.deepEqual(await stored(cal.id), [{ sex: 'another' }]);
      // The command itself: only the candidate, about their own invitation.
      const { rows } = await ctx().db.query<{ id: string }>(`SELECT id::text FROM invitations WHERE candidate_id = $1`, [cal.id]);
      const invitationId = rows[0]!.id;
      const run = (actor: Parameters<typeof runCommand>[1]['actor']) =>
        runCommand(ctx().db, { actor, requestId: 'test', now: new Date(clock.at) }, (c) => recordSelfId(c, { invitationId, answers: { sex: 'male' } }));
      await assert.rejects(run({ kind: 'user', id: 'u', email: 'm@example.com', role: 'owner' }), /Only the candidate/);
      await assert.rejects(run({ kind: 'candidate', id: ada.id }), /No such invitation/);
      await assert.rejects(
        runCommand(ctx().db, { actor: { kind: 'candidate', id: cal.id }, requestId: 'test', now: new Date(clock.at) }, (c) =>
          recordSelfId(c, { invitationId, answers: { sex: 42 } }),
        ),
        /sex: must be one of female, male, another, prefer-not-to-say/,
      );
      assert.deepEqual(await stored(cal.id), [{ sex: 'another' }]);
    });

    it('never appears in reports, GET /v1/score, GET /v1/candidates/{id} or webhook payloads', async () => {
      const dee = await person();
      await dee.take('PASS');
      assert.equal((await dee.selfId({ sex: 'female', 'race-ethnicity': 'native-american' })).statusCode, 303);
      const leaks = /native-american|American Indian|race-ethnicity|self-id|selfIdentification/i;
      const seen = [
        (await ctx().request({ method: 'GET', url: `/v1/score?candidateIds=${dee.id}`, headers: { 'x-api-key': key, instance } })).body,
        (await ctx().request({ method: 'GET', url: `/v1/candidates/${dee.id}`, headers: { 'x-api-key': key, instance } })).body,
        (await manager.get(`/console/candidates/${dee.id}?instance=${instance}`)).body,
        (await reviewer.get(`/console/candidates/${dee.id}?instance=${instance}`)).body,
        (await manager.get(`/console/candidates.csv?instance=${instance}`)).body,
      ];
      for (const [i, body] of seen.entries()) assert.doesNotMatch(body, leaks, `surface ${i}`);
      assert.match(seen[0]!, /"PASS"/, 'the score is there');
      const events = await ctx().db.query<{ body: string }>(`SELECT o.body FROM outbox_events o JOIN instances s ON s.id = o.instance_id WHERE s.name = $1`, [instance]);
      assert.ok(events.rows.length > 0, 'events were made');
      for (const e of events.rows) assert.doesNotMatch(e.body, leaks);
    });

    it('a seeded data set where one group passes at 40 % and another at 70 % shows the four-fifths flag on the page and in the CSV', async () => {
      const seed = async (answers: Record<string, string> | undefined, results: Result[]) => {
        for (const result of results) {
          const c = await person();
          await c.take(result);
          if (answers) assert.equal((await c.selfId(answers)).statusCode, 303);
        }
      };
      // Female: 4 PASS, 2 LOW_PASS, 4 FAIL (40 %; 60 % with LOW_PASS). Male: 7 PASS, 3 FAIL (70 %).
      await seed({ sex: 'female', 'age-band': 'under-40' }, ['PASS', 'PASS', 'PASS', 'PASS', 'LOW_PASS', 'LOW_PASS', 'FAIL', 'FAIL', 'FAIL', 'FAIL']);
      await seed({ sex: 'male', 'age-band': '40-plus' }, ['PASS', 'PASS', 'PASS', 'PASS', 'PASS', 'PASS', 'PASS', 'FAIL', 'FAIL', 'FAIL']);
      // The earlier tests' candidates: bea (PASS, answers removed), cal (FAIL, "another"), dee (PASS, female), ada (not submitted).
      await seed({ sex: 'prefer-not-to-say' }, ['PASS']);
      await seed(undefined, ['FAIL']);

      const page = await manager.get(`/console/impact?instance=${instance}&assessment=screen`);
      assert.equal(page.statusCode, 200, page.body);
      const row = (label: string) =>
        new RegExp(
          `<th scope="row">${label}</th>\\s*<td class="num">(\\d+)</td>\\s*<td class="num">(\\d+)</td>\\s*<td class="num">([^<]*)</td>\\s*<td class="num">([^<]*)</td>\\s*<td>(.*?)</td>\\s*<td class="num">([^<]*)</td>`,
        );
      const sex = page.body.slice(page.body.indexOf('id="impact-q-sex"'), page.body.indexOf('id="impact-q-race-ethnicity"'));
      // dee (female, PASS) joined the seeded women: 5 of 11.
      assert.deepEqual(row('Female').exec(sex)!.slice(1, 5), ['11', '5', '45.5 %', '0.64']);
      assert.match(row('Female').exec(sex)![5]!, /Below four fifths/);
      assert.deepEqual(row('Male').exec(sex)!.slice(1, 6), ['10', '7', '70.0 %', '1.00', 'Reference: the highest rate']);
      assert.deepEqual(row('Another').exec(sex)!.slice(1, 6), ['1', '0', '0.0 %', '-', 'Too few to judge (fewer than 5)']);
      assert.deepEqual(row('Prefer not to say').exec(sex)!.slice(1, 6), ['1', '1', '-', '-', 'Not in the ratios']);
      assert.deepEqual(row('No answer').exec(sex)!.slice(1, 6), ['2', '1', '-', '-', 'Not in the ratios']);
      assert.match(page.body, /<dt>Completed and scored in the period<\/dt><dd>25<\/dd>/);
      assert.match(page.body, /How to read this/);
      // The age question: the same people, grouped by age band: 40 % against 70 % exactly.
      const age = page.body.slice(page.body.indexOf('id="impact-q-age-band"'));
      assert.deepEqual(row('Under 40').exec(age)!.slice(1, 5), ['10', '4', '40.0 %', '0.57']);
      assert.match(row('Under 40').exec(age)![5]!, /Below four fifths/);
      assert.equal(row('Under 40').exec(age)![6], '0.370', "Fisher's exact test, two-sided");
      assert.deepEqual(row('40 or older').exec(age)!.slice(1, 6), ['10', '7', '70.0 %', '1.00', 'Reference: the highest rate']);
      assert.deepEqual(row('No answer').exec(age)!.slice(1, 3), ['5', '3']);

      // LOW_PASS counted as selected, when chosen: 60 % against 70 %, no flag.
      const low = await manager.get(`/console/impact?instance=${instance}&assessment=screen&selected=pass-or-low-pass`);
      const lowAge = low.body.slice(low.body.indexOf('id="impact-q-age-band"'));
      assert.deepEqual(row('Under 40').exec(lowAge)!.slice(1, 6), ['10', '6', '60.0 %', '0.85', 'At or above four fifths']);

      const csv = await manager.get(`/console/impact.csv?instance=${instance}&assessment=screen`);
      assert.equal(csv.statusCode, 200);
      assert.match(String(csv.headers['content-type']), /^text\/csv/);
      assert.match(String(csv.headers['content-disposition']), /attachment; filename="adverse-impact-impact-[^"]*-screen-/);
      const lines = csv.body
        .replace(/^\uFEFF/, '')
        .trim()
        .split('\r\n');
      assert.match(lines[0]!, /"question","group","completed","selectedCount","selectionRate","impactRatio","fourFifths","pValue"/);
      const from = new Date(Date.parse(`${today()}T00:00:00Z`) - 365 * DAY).toISOString().slice(0, 10);
      assert.ok(lines.includes(`"screen","Screening check","${from}","${today()}","pass","Age","Under 40","10","4","0.4000","0.57","Below four fifths","0.370"`), lines.join('\n'));
      assert.ok(lines.some((l) => l.endsWith('"Sex","Another","1","0","0.0000","","Too few to judge (fewer than 5)",""')));
      assert.ok(lines.some((l) => l.endsWith('"Sex","No answer","2","1","","","Not in the ratios",""')));

      // Another period: nothing counted. A bad filter is a clear 400.
      const yesterday = new Date(clock.at - DAY).toISOString().slice(0, 10);
      const empty = await manager.get(`/console/impact?instance=${instance}&assessment=screen&from=2020-01-01&to=${yesterday}`);
      assert.match(empty.body, /<dt>Completed and scored in the period<\/dt><dd>0<\/dd>/);
      assert.match(empty.body, /nothing to compare yet/);
      for (const [query, message] of [
        ['from=2026-02-30', /from<\/code> must be a date, YYYY-MM-DD|from: must be a date/],
        [`from=${today()}&to=2020-01-01`, /must not be after to/],
        ['selected=everyone', /must be one of pass, pass-or-low-pass/],
        ['assessment=nope', /is not an assessment of/],
      ] as const) {
        const bad = await manager.get(`/console/impact?instance=${instance}&${query}`);
        assert.equal(bad.statusCode, 400, query);
        assert.match(bad.body, message);
      }
    });

    it('reviewers are refused the page, the CSV and the settings', async () => {
      assert.equal((await reviewer.get(`/console/impact?instance=${instance}`)).statusCode, 403);
      assert.equal((await reviewer.get(`/console/impact.csv?instance=${instance}`)).statusCode, 403);
      assert.equal((await reviewer.post('/console/impact/settings', { instance, enabled: '', questions: '' })).statusCode, 403);
      assert.doesNotMatch((await reviewer.get(`/console/?instance=${instance}`)).body, /Adverse impact/);
      assert.match((await manager.get(`/console/?instance=${instance}`)).body, /href="\/console\/impact\?instance=/);
    });

    it('settings: validated in the admin API and the console, their own questions shown, and the form can be turned off', async () => {
      const own = await ctx().instance('impact-own');
      assert.equal((await ctx().publish(own, SCREEN)).statusCode, 201);
      const ownKey = await ctx().key([own]);
      const owner = await consoleUser(ctx(), `owner-${own}@example.com`, 'owner');
      const boss = await consoleAs(ctx(), `owner-${own}@example.com`, owner.password);
      const url = `/admin/v1/instances/${own}/self-identification`;
      const initial = (await ctx().request({ method: 'GET', url })).json() as { enabled: boolean; isDefault: boolean; questions: { id: string; options: unknown[] }[] };
      assert.equal(initial.enabled, true);
      assert.equal(initial.isDefault, true);
      assert.deepEqual(
        initial.questions.map((q) => [q.id, q.options.length]),
        [
          ['sex', 3],
          ['race-ethnicity', 7],
          ['age-band', 2],
        ],
      );
      const put = (payload: unknown) => ctx().request({ method: 'PUT', url, payload: payload as Record<string, unknown> });
      const options = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `o${i}`, label: `Option ${i}` }));
      for (const [questions, detail] of [
        [[{ id: 'veteran', label: 'Veteran', options: options(1) }], /options|fewer than 2/],
        [[{ id: 'veteran', label: 'Veteran', options: options(21) }], /options|more than 20/],
        [[{ id: 'veteran', label: 'Veteran', options: [...options(2), { id: 'prefer-not-to-say', label: 'No' }] }], /added to every question by the service/],
        [
          [
            {
              id: 'veteran',
              label: 'Veteran',
              options: [
                { id: 'a', label: 'A' },
                { id: 'a', label: 'B' },
              ],
            },
          ],
          /is the id of another option/,
        ],
        [
          [
            { id: 'veteran', label: 'Veteran', options: options(2) },
            { id: 'veteran', label: 'Again', options: options(2) },
          ],
          /is the id of another question/,
        ],
        [[{ id: 'Veteran!', label: 'Veteran', options: options(2) }], /a-z, 0-9 and -/],
        [[{ id: 'veteran', label: 'a\u202Eb', options: options(2) }], /bidirectional/],
        [[], /questions/],
      ] as const) {
        const refused = await put({ questions });
        assert.equal(refused.statusCode, 400, JSON.stringify(questions));
        assert.match(refused.body, detail);
      }
      assert.equal((await put({ enabled: 'yes' })).statusCode, 400);
      assert.deepEqual((await ctx().request({ method: 'GET', url })).json(), initial, 'nothing changed');

      const custom = [
        {
          id: 'veteran',
          label: 'Protected veteran status',
          options: [
            { id: 'yes', label: 'I am a protected veteran' },
            { id: 'no', label: 'I am not a protected veteran' },
          ],
        },
      ];
      const set = await put({ questions: custom });
      assert.equal(set.statusCode, 200, set.body);
      assert.deepEqual(set.json().questions, custom);
      assert.equal(set.json().updatedBy, 'admin-token');
      const eve = await candidate(ctx(), own, ownKey, `eve-${own}@example.com`);
      await eve.take('PASS');
      const form = await eve.page();
      assert.match(form.body, /<legend>Protected veteran status<\/legend>/);
      assert.match(form.body, /Prefer not to say/);
      assert.doesNotMatch(form.body, /Race\/ethnicity/);
      assert.equal((await eve.selfId({ sex: 'female' })).statusCode, 400, 'a question no longer asked');
      assert.equal((await eve.selfId({ veteran: 'yes' })).statusCode, 303);
      const report = await boss.get(`/console/impact?instance=${own}&assessment=screen`);
      assert.match(report.body, /<h2 id="impact-q-veteran">Protected veteran status<\/h2>/);

      // The console: bad YAML and bad questions are named, nothing changes.
      const badYaml = await boss.post('/console/impact/settings', { instance: own, enabled: '1', questions: '- id: [unclosed', action: 'save' });
      assert.equal(badYaml.statusCode, 400);
      assert.match(badYaml.body, /is not valid YAML/);
      const oneOption = await boss.post('/console/impact/settings', {
        instance: own,
        enabled: '1',
        questions: '- id: x\n  label: X\n  options:\n    - id: a\n      label: A\n',
        action: 'save',
      });
      assert.equal(oneOption.statusCode, 400);
      assert.match(oneOption.body, /questions\[0\]\.options<\/code> must list 2-20 options/);
      assert.deepEqual((await ctx().request({ method: 'GET', url })).json().questions, custom);

      // Turned off: the form is no longer offered, and a post is refused.
      const off = await boss.post('/console/impact/settings', { instance: own, questions: 'x', action: 'default' });
      assert.equal(off.statusCode, 303, off.body);
      const now = (await ctx().request({ method: 'GET', url })).json() as { enabled: boolean; isDefault: boolean; updatedBy: string };
      assert.deepEqual([now.enabled, now.isDefault, now.updatedBy], [false, true, `user:owner-${own}@example.com`]);
      assert.doesNotMatch((await eve.page()).body, /self-id/);
      const refused = await eve.selfId({ veteran: 'no' });
      assert.equal(refused.statusCode, 409);
      assert.match(refused.body, /does not ask these questions/);
      assert.deepEqual(await stored(eve.id), [{ veteran: 'yes' }], 'kept until erased');
      // On again, with the default questions sent back unchanged: they stay the default set.
      const page = await boss.get(`/console/impact?instance=${own}`);
      const yaml = /<textarea id="self-id-questions"[^>]*>([^]*?)<\/textarea>/
        .exec(page.body)![1]!
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&amp;/g, '&');
      assert.equal((await boss.post('/console/impact/settings', { instance: own, enabled: '1', questions: yaml, action: 'save' })).statusCode, 303);
      assert.deepEqual((({ enabled, isDefault }) => [enabled, isDefault])((await ctx().request({ method: 'GET', url })).json()), [true, true]);
      const actions = await ctx().db.query<{ actor: string; action: string }>(
        `SELECT actor, action FROM audit_log WHERE target = $1 AND action LIKE 'self-identification%' ORDER BY id`,
        [own],
      );
      assert.deepEqual(
        actions.rows.map((a) => a.actor),
        ['admin-token', `user:owner-${own}@example.com`, `user:owner-${own}@example.com`],
      );
    });

    it('the data export lists it; erasure and the retention sweep delete it', async () => {
      const fay = await person();
      await fay.take('PASS');
      assert.equal((await fay.selfId({ sex: 'female', 'age-band': '40-plus' })).statusCode, 303);
      const data = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/export`, payload: { candidateId: fay.id } });
      assert.deepEqual(
        (data.json().selfIdentification as { assessmentId: string; answers: unknown }[]).map(({ assessmentId, answers }) => ({ assessmentId, answers })),
        [{ assessmentId: 'screen', answers: { sex: 'female', 'age-band': '40-plus' } }],
      );
      const erased = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/erase`, payload: { candidateId: fay.id } });
      assert.equal(erased.statusCode, 200, erased.body);
      assert.deepEqual(await stored(fay.id), []);

      const kept = await ctx().instance('impact-kept');
      assert.equal((await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${kept}`, payload: { retentionDays: 30 } })).statusCode, 200);
      assert.equal((await ctx().publish(kept, SCREEN)).statusCode, 201);
      const keptKey = await ctx().key([kept]);
      const gus = await candidate(ctx(), kept, keptKey, `gus-${kept}@example.com`);
      await gus.take('FAIL');
      assert.equal((await gus.selfId({ sex: 'male' })).statusCode, 303);
      const deps = { db: ctx().db, mailDir: ctx().mailDir };
      assert.equal(await sweepRetention({ ...deps, now: () => new Date(clock.at + 29 * DAY) }), 0);
      assert.deepEqual(await stored(gus.id), [{ sex: 'male' }], 'within the period');
      assert.ok((await sweepRetention({ ...deps, now: () => new Date(clock.at + 31 * DAY) })) >= 1);
      assert.deepEqual(await stored(gus.id), []);
    });
  },
  { now: clock.now },
);
