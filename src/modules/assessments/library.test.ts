// Offering library assessments to an instance over the admin API: the listing with what each
// instance offers, publishing by id, never replacing an instance's own content unasked, and never
// changing the version a started attempt runs on.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { describeEachStore, sampleAssessment } from '../../../test/harness.js';
import { readLibrary } from './library.js';

const FORM = 'application/x-www-form-urlencoded';

describeEachStore('the assessment library over the admin API', (ctx) => {
  const offer = (instance: string, body: unknown) => ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/library`, payload: body as object });
  const listing = async (instance?: string) => {
    const response = await ctx().request({ method: 'GET', url: `/admin/v1/library${instance ? `?instance=${instance}` : ''}` });
    assert.equal(response.statusCode, 200, response.body);
    return response.json() as { id: string; roles: string[]; readingLevel: string | null; offered?: string }[];
  };
  const offeredOf = async (instance: string) => Object.fromEntries((await listing(instance)).map((a) => [a.id, a.offered]));

  it('lists the library with roles and reading level, and for an instance what it offers', async () => {
    const all = await listing();
    assert.deepEqual(
      all.map((a) => a.id),
      readLibrary().map((e) => e.id),
    );
    assert.ok(all.length >= 12);
    assert.ok(all.every((a) => a.roles.length > 0 && a.readingLevel?.startsWith('CEFR') && a.offered === undefined));
    const instance = await ctx().instance();
    assert.ok(Object.values(await offeredOf(instance)).every((o) => o === 'no'));
    assert.equal((await ctx().request({ method: 'GET', url: '/admin/v1/library?instance=nowhere' })).statusCode, 404);
  });

  it('offers the chosen assessments only, then leaves them unchanged when offered again', async () => {
    const instance = await ctx().instance();
    const first = await offer(instance, { assessments: ['verbal-reasoning', 'big-five'] });
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(first.json(), [
      { id: 'verbal-reasoning', version: 1, outcome: 'created' },
      { id: 'big-five', version: 1, outcome: 'created' },
    ]);
    const offered = await offeredOf(instance);
    assert.equal(offered['verbal-reasoning'], 'current');
    assert.equal(offered['big-five'], 'current');
    assert.equal(Object.values(offered).filter((o) => o === 'current').length, 2, 'nothing else');
    const key = await ctx().key([instance]);
    const clients = (await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': key } })).json() as { id: string }[];
    assert.deepEqual(clients.map((a) => a.id).sort(), ['big-five', 'verbal-reasoning'], 'clients may invite to what is offered');
    assert.deepEqual((await offer(instance, { assessments: ['big-five'] })).json(), [{ id: 'big-five', version: 1, outcome: 'unchanged' }]);
  });

  it('offers assessments with their media files: figures as sanitised SVG, a spoken clip as WAV, each served and described', async () => {
    const instance = await ctx().instance();
    const ids = ['abstract-reasoning', 'numerical-reasoning', 'english-grammar'];
    const first = await offer(instance, { assessments: ids });
    assert.equal(first.statusCode, 200, first.body);
    assert.deepEqual(
      (first.json() as { outcome: string }[]).map((r) => r.outcome),
      ['created', 'created', 'created'],
    );
    const offered = await offeredOf(instance);
    assert.deepEqual(
      ids.map((id) => offered[id]),
      ['current', 'current', 'current'],
      'the library knows its content with media as offered',
    );
    assert.deepEqual(
      (await offer(instance, { assessments: ids })).json().map((r: { outcome: string }) => r.outcome),
      ['unchanged', 'unchanged', 'unchanged'],
    );
    const versions = await ctx().db.query<{ slug: string; content: { questions: { id: string; prompt: string }[]; translations?: unknown } }>(
      `SELECT a.slug, v.content FROM assessments a JOIN assessment_versions v ON v.assessment_id = a.id AND v.version = a.current_version
        JOIN instances i ON i.id = a.instance_id WHERE i.name = $1 ORDER BY a.slug`,
      [instance],
    );
    const prompt = (slug: string, id: string) => versions.rows.find((r) => r.slug === slug)!.content.questions.find((q) => q.id === id)!.prompt;
    const target = (text: string) => /!\[([^\]]+)\]\(media:([0-9a-f]{64})\.(\w+)\)/.exec(text)!;
    const served = async (text: string) => {
      const [, alt, sha256, ext] = target(text);
      const response = await ctx().request({ method: 'GET', url: `/portal/media/${sha256}.${ext}` });
      assert.equal(response.statusCode, 200, text);
      return { alt: alt!, type: String(response.headers['content-type']), body: response.rawPayload };
    };
    for (const [slug, id] of [
      ['abstract-reasoning', 'ar-14'],
      ['abstract-reasoning', 'ar-16'],
      ['numerical-reasoning', 'nr-08'],
    ] as const) {
      const figure = await served(prompt(slug, id));
      assert.match(figure.type, /^image\/svg\+xml/);
      assert.match(figure.body.toString('utf8'), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
      assert.ok(figure.alt.length > 60, `${slug} ${id}: the alternative text says what the figure shows`);
    }
    assert.match((await served(prompt('numerical-reasoning', 'nr-08'))).alt, /January 260, February 310, March 290, April 340/);
    const clip = await served(prompt('english-grammar', 'eg-17'));
    assert.match(clip.type, /^audio\/wav/);
    assert.equal(clip.body.subarray(8, 12).toString('latin1'), 'WAVE');
    assert.ok(clip.body.length > 100_000, 'a spoken clip, not a beep');
    // German and Spanish prompts show the figures with their own alternative text (and charts in their language).
    const numerical = JSON.stringify(versions.rows.find((r) => r.slug === 'numerical-reasoning')!.content.translations);
    assert.match(numerical, /Balkendiagramm[^\]]*\]\(media:[0-9a-f]{64}\.svg\)/);
    assert.match(numerical, /gráfico de barras[^\]]*\]\(media:[0-9a-f]{64}\.svg\)/);
    assert.doesNotMatch(numerical, /\]\(media\//, 'every translated reference names a stored file');
  });

  it('refuses an id the library does not have, publishing nothing', async () => {
    const instance = await ctx().instance();
    const refused = await offer(instance, { assessments: ['verbal-reasoning', 'astrology'] });
    assert.equal(refused.statusCode, 400);
    assert.deepEqual(refused.json().errors, [{ in: 'body', name: 'assessments', pointer: '#/assessments', detail: '"astrology" is not an assessment of the library' }]);
    assert.ok(Object.values(await offeredOf(instance)).every((o) => o === 'no'));
    assert.equal((await offer(instance, { assessments: [] })).statusCode, 400);
    assert.equal((await offer('nowhere', { assessments: ['big-five'] })).statusCode, 404);
  });

  it("keeps an instance's own content under a library id unless asked, and a started attempt keeps its version", async () => {
    const instance = await ctx().instance();
    assert.equal((await ctx().publish(instance, sampleAssessment('verbal-reasoning', { name: 'Our own' }))).statusCode, 201);
    assert.equal((await offeredOf(instance))['verbal-reasoning'], 'other');
    assert.deepEqual((await offer(instance, { assessments: ['verbal-reasoning'] })).json(), [{ id: 'verbal-reasoning', version: null, outcome: 'kept' }]);

    // A candidate starts on the instance's own version 1.
    const key = await ctx().key([instance]);
    const [invite] = (
      await ctx().request({
        method: 'POST',
        url: '/v1/invite',
        headers: { 'x-api-key': key, instance },
        payload: { email: 'kept@example.com', firstName: 'Kay', lastName: 'Kept', assessments: ['verbal-reasoning'] },
      })
    ).json();
    const opened = await ctx().request({ method: 'POST', url: '/portal/api/session', payload: { token: invite.link.split('sessionToken=')[1] } });
    const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
    const intro = await ctx().request({ method: 'GET', url: '/portal/a/verbal-reasoning', headers: { cookie } });
    const csrf = /name="csrf-token" content="([^"]+)"/.exec(intro.body)![1]!;
    const started = await ctx().request({
      method: 'POST',
      url: '/portal/a/verbal-reasoning/start',
      headers: { cookie, 'content-type': FORM },
      payload: `_csrf=${encodeURIComponent(csrf)}`,
    });
    assert.equal(started.statusCode, 303);

    const replaced = await offer(instance, { assessments: ['verbal-reasoning'], update: true });
    assert.deepEqual(replaced.json(), [{ id: 'verbal-reasoning', version: 2, outcome: 'updated' }]);
    assert.equal((await offeredOf(instance))['verbal-reasoning'], 'current');
    const attempts = (await ctx().request({ method: 'GET', url: `/admin/v1/instances/${instance}/candidates/${invite.candidateId}/attempts` })).json() as { version: number }[];
    assert.deepEqual(
      attempts.map((a) => a.version),
      [1],
      'the started attempt stays on the version it started',
    );
    const page = await ctx().request({ method: 'GET', url: '/portal/a/verbal-reasoning?q=1', headers: { cookie } });
    assert.match(page.body, /What is 2 \+ 2\?/, 'the candidate still sees the content they started');
  });
});
