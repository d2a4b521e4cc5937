// Webcam snapshots on both stores: off by default (the endpoint refuses, nothing is asked); the
// importer checks the interval; the candidate agrees or declines before starting (the choice is
// recorded with the attempt, a start without one starts nothing); uploads are refused when they
// are not a JPEG, too large, too soon, after completion, without consent or from another session,
// each with a clear error and nothing written; the console's strip and image route check the
// instance like the report; shared report links carry none; erasure, the retention sweep and the
// data export cover them. The app's clock is frozen and moved by the test.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import sharp from 'sharp';
import { describeEachStore, sampleAssessment, type TestContext } from './harness.js';
import { frozenClock } from './support/clock.js';
import { consoleAs, consoleUser } from './support/console.js';
import { candidate as portalCandidate } from './support/portal.js';
import { sweepRetention } from '../src/modules/privacy/service.js';

const DAY = 24 * 60 * 60 * 1000;
const clock = frozenClock();

const JPEG = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#336699' } })
  .withMetadata({ exif: { IFD0: { ImageDescription: 'secret-exif-note' } } })
  .jpeg({ quality: 60 })
  .toBuffer();
const PNG = await sharp({ create: { width: 32, height: 24, channels: 3, background: '#336699' } })
  .png()
  .toBuffer();

const webcamAssessment = (id: string, setting = '  webcam:\n    intervalSeconds: 30\n') => `${sampleAssessment(id)}proctoring:\n${setting}`;

/** A candidate in the portal: their session, and helpers for its pages and posts. */
async function candidate(ctx: TestContext, instance: string, key: string, email: string, assessments: string[], extra: Record<string, unknown> = {}) {
  const c = await portalCandidate(ctx, { instance, key }, { email, firstName: 'Cam', lastName: 'Tester', ...extra }, assessments);
  const slug = assessments[0]!;
  return {
    id: c.candidateId,
    cookie: c.cookie,
    csrf: c.csrf,
    page: (url = `/portal/a/${slug}`, headers: Record<string, string> = {}) => c.get(url, headers),
    start: (fields: Record<string, string> = {}) => c.form(`/portal/a/${slug}/start`, fields),
    submit: () => c.form(`/portal/a/${slug}/submit`),
    upload: (body: Buffer, headers: Record<string, string> = {}) =>
      ctx.request({
        method: 'POST',
        url: `/portal/api/a/${slug}/webcam/snapshots`,
        headers: { cookie: c.cookie, 'x-csrf-token': c.csrf, 'content-type': 'image/jpeg', ...headers },
        payload: body,
      }),
    unavailable: (detail: string) => c.post(`/portal/api/a/${slug}/webcam/unavailable`, { detail }),
  };
}
type Candidate = Awaited<ReturnType<typeof candidate>>;

describeEachStore(
  'webcam snapshots',
  (ctx) => {
    let instance: string;
    let other: string;
    let key: string;
    let seq = 0;
    const person = (name: string, assessments = ['cam'], extra: Record<string, unknown> = {}) =>
      candidate(ctx(), instance, key, `${name}-${++seq}-${instance}@example.com`, assessments, extra);

    const snapshotCount = async (candidateId: string) =>
      (
        await ctx().db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM webcam_snapshots s JOIN attempts a ON a.id = s.attempt_id JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1`,
          [candidateId],
        )
      ).rows[0]!.n;
    const consent = async (candidateId: string) =>
      (
        await ctx().db.query<{ choice: string; clientAddress: string | null; cameraUnavailableAt: Date | null; cameraDetail: string | null }>(
          `SELECT c.choice, c.client_address AS "clientAddress", c.camera_unavailable_at AS "cameraUnavailableAt", c.camera_detail AS "cameraDetail"
             FROM webcam_consents c JOIN attempts a ON a.id = c.attempt_id JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1`,
          [candidateId],
        )
      ).rows;
    const attempts = async (candidateId: string) =>
      (await ctx().db.query(`SELECT a.id FROM attempts a JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1`, [candidateId])).rows.length;

    before(async () => {
      instance = await ctx().instance('cam');
      other = await ctx().instance('cam-other');
      for (const [id, source] of [
        ['alpha', sampleAssessment('alpha')],
        ['cam', webcamAssessment('cam')],
        ['cam-default', webcamAssessment('cam-default', '  webcam: {}\n')],
      ]) {
        const published = await ctx().publish(instance, source!);
        assert.equal(published.statusCode, 201, `${id}: ${published.body}`);
      }
      key = await ctx().key([instance]);
    });

    it('the importer takes an interval of 30 to 600 seconds (default 60) and refuses anything else, naming it', async () => {
      for (const [setting, detail] of [
        ['  webcam:\n    intervalSeconds: 29\n', /proctoring\.webcam\.intervalSeconds|intervalSeconds/],
        ['  webcam:\n    intervalSeconds: 601\n', /intervalSeconds/],
        ['  webcam:\n    intervalSeconds: 45.5\n', /intervalSeconds/],
        ['  webcam:\n    everySeconds: 60\n', /everySeconds|additional/],
        ['  faceRecognition: true\n', /faceRecognition|additional/],
      ] as const) {
        const refused = await ctx().publish(instance, webcamAssessment('bad-cam', setting));
        assert.equal(refused.statusCode, 400, `${setting}: ${refused.body}`);
        assert.match(refused.body, detail, setting);
      }
      const defaulted = await person('default', ['cam-default']);
      assert.match((await defaulted.page('/portal/a/cam-default')).body, /every 60 seconds/);
    });

    it('off by default: nothing is asked, the page may not use the camera, and the endpoint refuses', async () => {
      const plain = await person('plain', ['alpha']);
      const intro = await plain.page('/portal/a/alpha');
      assert.doesNotMatch(intro.body, /webcam-heading|name="webcam"/);
      assert.equal((await plain.start()).statusCode, 303, 'started without a choice');
      const question = await plain.page('/portal/a/alpha');
      assert.doesNotMatch(question.body, /id="webcam"/);
      assert.match(String(question.headers['permissions-policy']), /camera=\(\)/);
      const refused = await plain.upload(JPEG);
      assert.equal(refused.statusCode, 403, refused.body);
      assert.match(refused.json().detail, /This assessment takes no webcam snapshots/);
      assert.equal(await snapshotCount(plain.id), 0);
      assert.deepEqual(await consent(plain.id), []);
    });

    it('asks before starting, in the candidate language; a start without a choice starts nothing; agreeing and declining are recorded', async () => {
      const ada = await person('ada');
      const intro = await ada.page();
      assert.match(intro.body, /<h2 id="webcam-heading">Webcam snapshots<\/h2>/);
      assert.match(intro.body, /a still image from your webcam every 30 seconds/);
      assert.match(intro.body, /never sent to anyone else\. No face recognition/);
      // Whose request this is: the company of the candidate's instance (its name, unbranded), in the question and the title.
      assert.ok(intro.body.includes(`${instance} asks to take a still image`), intro.body);
      assert.ok(intro.body.includes(`Only ${instance}&#39;s reviewers see the images`), intro.body);
      assert.match(intro.body, new RegExp(`<title>[^<]* · ${instance}</title>`));
      assert.match(intro.body, /<button type="submit" class="primary" name="webcam" value="agreed">Agree and start<\/button>/);
      assert.match(intro.body, /<button type="submit" name="webcam" value="declined">Decline and start without snapshots<\/button>/);
      const german = await ada.page('/portal/a/cam', { 'accept-language': 'de' });
      assert.match(german.body, /Webcam-Schnappschüsse/);
      const spanish = await ada.page('/portal/a/cam', { 'accept-language': 'es' });
      assert.match(spanish.body, /Capturas de la cámara web/);

      for (const fields of [{}, { webcam: 'maybe' }] as Record<string, string>[]) {
        const refused = await ada.start(fields);
        assert.equal(refused.statusCode, 400, refused.body);
        assert.equal(await attempts(ada.id), 0, 'no attempt was started');
      }
      assert.equal((await ada.start({ webcam: 'agreed' })).statusCode, 303);
      assert.deepEqual(
        (await consent(ada.id)).map((c) => c.choice),
        ['agreed'],
      );
      // Starting again (a second tab) keeps the first choice.
      assert.equal((await ada.start({ webcam: 'declined' })).statusCode, 303);
      assert.deepEqual(
        (await consent(ada.id)).map((c) => c.choice),
        ['agreed'],
      );
      const question = await ada.page();
      assert.match(question.body, /<p class="webcam-note" id="webcam" role="status" data-interval="30" data-next="[^"]+" data-now="[^"]+" data-reported="false">/);
      assert.match(String(question.headers['permissions-policy']), /camera=\(self\)/);

      const bob = await person('bob');
      assert.equal((await bob.start({ webcam: 'declined' })).statusCode, 303);
      assert.deepEqual(
        (await consent(bob.id)).map((c) => c.choice),
        ['declined'],
      );
      const declinedPage = await bob.page();
      assert.doesNotMatch(declinedPage.body, /id="webcam"/);
      assert.match(String(declinedPage.headers['permissions-policy']), /camera=\(\)/);
    });

    it('the practice page asks the same before its Start', async () => {
      const source = `${webcamAssessment('cam-practice')}practice:\n  type: single-choice\n  prompt: Practice?\n  options:\n    - text: "yes"\n      correct: true\n    - text: "no"\n`;
      assert.equal((await ctx().publish(instance, source)).statusCode, 201);
      const cara = await person('cara', ['cam-practice']);
      const practice = await cara.page('/portal/a/cam-practice/practice');
      assert.equal(practice.statusCode, 200, practice.body);
      assert.match(practice.body, /name="webcam" value="agreed"/);
      assert.match(practice.body, /name="webcam" value="declined"/);
    });

    it('works with an accommodation: the extra time shows, and the choice starts the longer attempt', async () => {
      const slow = await person('extra-time', ['cam'], { extraTimePercent: 50 });
      const intro = await slow.page();
      assert.match(intro.body, /<strong>30 minutes<\/strong>/);
      assert.match(intro.body, /name="webcam" value="agreed"/);
      assert.equal((await slow.start({ webcam: 'agreed' })).statusCode, 303);
      const question = await slow.page();
      assert.match(question.body, /id="webcam"/);
      const [, deadline, now] = /data-deadline="([^"]+)" data-now="([^"]+)"/.exec(question.body)!;
      assert.equal(Date.parse(deadline!) - Date.parse(now!), 30 * 60_000, 'the attempt runs 30 minutes');
    });

    let ada: Candidate;
    let bob: Candidate;

    it('takes a JPEG once per interval, re-encoded without metadata; refuses what breaks a rule, clearly, writing nothing', async () => {
      ada = await person('upload');
      assert.equal((await ada.start({ webcam: 'agreed' })).statusCode, 303);
      const taken = await ada.upload(JPEG);
      assert.equal(taken.statusCode, 201, taken.body);
      assert.equal(new Date(taken.json().nextAt).getTime(), clock.at + 30_000);
      assert.equal(await snapshotCount(ada.id), 1);
      const stored = (await ctx().db.query<{ image: Uint8Array }>(`SELECT image FROM webcam_snapshots ORDER BY taken_at DESC LIMIT 1`)).rows[0]!.image;
      assert.doesNotMatch(Buffer.from(stored).toString('latin1'), /secret-exif-note/, 'metadata is dropped');
      assert.equal((await sharp(Buffer.from(stored)).metadata()).format, 'jpeg');

      const refusals: [string, () => Promise<{ statusCode: number; body: string }>, number, RegExp][] = [
        ['too soon', () => ada.upload(JPEG), 429, /A snapshot was taken 0 s ago; this attempt takes one every 30 s/],
      ];
      for (const [name, send, status, detail] of refusals) {
        const refused = await send();
        assert.equal(refused.statusCode, status, `${name}: ${refused.body}`);
        assert.match(refused.body, detail, name);
      }
      clock.move(20_000);
      const early = await ada.upload(JPEG);
      assert.equal(early.statusCode, 429, 'within interval − slack (25 s) is still too soon');
      clock.move(6_000);
      const big = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(210 * 1024, 7)]);
      for (const [name, send, status, detail] of [
        ['a PNG', () => ada.upload(PNG, { 'content-type': 'image/png' }), 415, /A snapshot is a JPEG image: these bytes are not one/],
        ['a PNG declared a JPEG', () => ada.upload(PNG), 415, /not one/],
        ['too large', () => ada.upload(big), 413, /The snapshot is 211 KB; the limit is 200 KB/],
        ['JPEG magic then garbage', () => ada.upload(Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), Buffer.from('not really')])), 400, /could not be read as a JPEG image/],
        ['empty', () => ada.upload(Buffer.alloc(0)), 400, /empty|JPEG/],
        ['without the CSRF token', () => ada.upload(JPEG, { 'x-csrf-token': 'wrong' }), 403, /out of date/],
        [
          'without a session',
          () => ctx().request({ method: 'POST', url: '/portal/api/a/cam/webcam/snapshots', headers: { 'content-type': 'image/jpeg' }, payload: JPEG }),
          401,
          /session/,
        ],
      ] as const) {
        const refused = await send();
        assert.equal(refused.statusCode, status, `${name}: ${refused.body}`);
        assert.match(refused.body, detail, name);
      }
      assert.equal(await snapshotCount(ada.id), 1, 'nothing was written by a refusal');
      assert.equal((await ada.upload(JPEG)).statusCode, 201, 'after interval − slack, the next is taken');
      assert.equal(await snapshotCount(ada.id), 2);
    });

    it('refuses a candidate who declined, one who has not started (another attempt is out of reach), and after completion', async () => {
      bob = await person('declines');
      assert.equal((await bob.start({ webcam: 'declined' })).statusCode, 303);
      const declined = await bob.upload(JPEG);
      assert.equal(declined.statusCode, 403, declined.body);
      assert.match(declined.json().detail, /The candidate did not agree to webcam snapshots/);
      const notStarted = await person('not-started');
      const refused = await notStarted.upload(JPEG);
      assert.equal(refused.statusCode, 409, refused.body);
      assert.equal(await snapshotCount(bob.id), 0);
      assert.equal(await snapshotCount(notStarted.id), 0);
      assert.equal(await snapshotCount(ada.id), 2, "another session's uploads never reach this attempt");

      const done = await person('done');
      assert.equal((await done.start({ webcam: 'agreed' })).statusCode, 303);
      assert.equal((await done.upload(JPEG)).statusCode, 201);
      assert.equal((await done.submit()).statusCode, 303);
      clock.move(60_000);
      const after = await done.upload(JPEG);
      assert.equal(after.statusCode, 409, after.body);
      assert.equal(await snapshotCount(done.id), 1);
    });

    it('keeps at most 200 per attempt', async () => {
      const many = await person('many');
      assert.equal((await many.start({ webcam: 'agreed' })).statusCode, 303);
      assert.equal((await many.upload(JPEG)).statusCode, 201);
      await ctx().db.query(
        `INSERT INTO webcam_snapshots (attempt_id, taken_at, image, width, height)
         SELECT s.attempt_id, s.taken_at - make_interval(secs => g * 60), s.image, s.width, s.height FROM webcam_snapshots s, generate_series(1, 199) g
          WHERE s.attempt_id = (SELECT a.id FROM attempts a JOIN invitations i ON i.id = a.invitation_id WHERE i.candidate_id = $1)`,
        [many.id],
      );
      clock.move(31_000);
      const full = await many.upload(JPEG);
      assert.equal(full.statusCode, 409, full.body);
      assert.match(full.json().detail, /This attempt has its 200 snapshots: no more are kept/);
      assert.equal(await snapshotCount(many.id), 200);
    });

    it('a camera refused or missing is recorded once; a declined candidate may not report it', async () => {
      const eve = await person('eve');
      assert.equal((await eve.start({ webcam: 'agreed' })).statusCode, 303);
      assert.equal((await eve.unavailable('NotAllowedError')).statusCode, 204);
      clock.move(1000);
      assert.equal((await eve.unavailable('NotFoundError')).statusCode, 204);
      const [row] = await consent(eve.id);
      assert.equal(row!.cameraDetail, 'NotAllowedError', 'the first report stands');
      const page = await eve.page();
      assert.match(page.body, /data-reported="true"/);
      const long = await eve.unavailable('x'.repeat(201));
      assert.equal(long.statusCode, 400);
      assert.equal((await bob.unavailable('NotAllowedError')).statusCode, 403);
      assert.equal((await bob.page()).body.includes('id="webcam"'), false);
    });

    it('the console shows the strip and the choice to the instance reviewers, serves images privately, and refuses other instances', async () => {
      const r = await consoleUser(ctx(), `reviewer-${instance}@example.com`, 'reviewer', [instance]);
      const reviewer = await consoleAs(ctx(), `reviewer-${instance}@example.com`, r.password);
      const o = await consoleUser(ctx(), `reviewer-${other}@example.com`, 'reviewer', [other]);
      const outsider = await consoleAs(ctx(), `reviewer-${other}@example.com`, o.password);

      const report = await reviewer.get(`/console/candidates/${ada.id}?instance=${instance}`);
      assert.equal(report.statusCode, 200, report.body);
      assert.match(report.body, /Webcam snapshots \(one every 30 s\): <strong class="webcam-state webcam-agreed">agreed<\/strong>/);
      const ids = [...report.body.matchAll(/<img src="\/console\/webcam\/([0-9a-f-]{36})\?instance=/g)].map((m) => m[1]!);
      assert.equal(ids.length, 2);
      assert.match(report.body, /alt="Webcam snapshot 1 of 2, \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC"/);
      const image = await reviewer.get(`/console/webcam/${ids[0]}?instance=${instance}`);
      assert.equal(image.statusCode, 200);
      assert.equal(image.headers['content-type'], 'image/jpeg');
      assert.equal(image.headers['cache-control'], 'private, no-store');
      assert.equal((await sharp(image.rawPayload).metadata()).format, 'jpeg');

      const declined = await reviewer.get(`/console/candidates/${bob.id}?instance=${instance}`);
      assert.match(declined.body, /webcam-declined">declined: no snapshots were taken/);
      const plain = await reviewer.get(`/console/candidates/${(await person('plain-report', ['alpha'])).id}?instance=${instance}`);
      assert.doesNotMatch(plain.body, /Webcam snapshots/);

      assert.equal((await outsider.get(`/console/candidates/${ada.id}?instance=${instance}`)).statusCode, 403);
      assert.equal((await outsider.get(`/console/webcam/${ids[0]}?instance=${instance}`)).statusCode, 403);
      assert.equal((await outsider.get(`/console/webcam/${ids[0]}?instance=${other}`)).statusCode, 404);
      assert.equal((await outsider.get(`/console/webcam/${ids[0]}`)).statusCode, 404, 'their own instance by default');
      assert.equal((await ctx().request({ method: 'GET', url: `/console/webcam/${ids[0]}?instance=${instance}` })).statusCode >= 300, true, 'signed out');
      assert.equal((await reviewer.get(`/console/webcam/not-a-uuid?instance=${instance}`)).statusCode, 404);
    });

    it('a shared report link and the candidate own pages carry no snapshots', async () => {
      const seen = (await ctx().request({ method: 'GET', url: `/v1/candidates/${ada.id}`, headers: { 'x-api-key': key, instance } })).json() as {
        invitations: { assessmentId: string; reportUrl: string }[];
      };
      const url = new URL(seen.invitations.find((i) => i.assessmentId === 'cam')!.reportUrl);
      const shared = await ctx().request({ method: 'GET', url: url.pathname + url.search });
      assert.equal(shared.statusCode, 200, shared.body);
      assert.doesNotMatch(shared.body, /webcam/i);
      assert.equal((await ada.submit()).statusCode, 303);
      assert.doesNotMatch((await ada.page()).body, /id="webcam"|\/webcam\//);
    });

    it('the export holds the choice and the images; erasure deletes the images and where the choice came from', async () => {
      const exported = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/export`, payload: { candidateId: ada.id } });
      assert.equal(exported.statusCode, 200, exported.body);
      const [webcam] = exported.json().webcam as { choice: string; snapshots: { base64: string; contentType: string }[] }[];
      assert.equal(webcam!.choice, 'agreed');
      assert.equal(webcam!.snapshots.length, 2);
      assert.equal((await sharp(Buffer.from(webcam!.snapshots[0]!.base64, 'base64')).metadata()).format, 'jpeg');

      const erased = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/erase`, payload: { candidateId: ada.id } });
      assert.equal(erased.statusCode, 200, erased.body);
      assert.equal(await snapshotCount(ada.id), 0);
      assert.deepEqual(
        (await consent(ada.id)).map((c) => [c.choice, c.clientAddress]),
        [['agreed', null]],
      );
    });

    it('the retention sweep deletes them with the rest of the candidate', async () => {
      const kept = await ctx().instance('cam-kept');
      assert.equal((await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${kept}`, payload: { retentionDays: 30 } })).statusCode, 200);
      assert.equal((await ctx().publish(kept, webcamAssessment('cam'))).statusCode, 201);
      const keptKey = await ctx().key([kept]);
      const zoe = await candidate(ctx(), kept, keptKey, `zoe-${kept}@example.com`, ['cam']);
      assert.equal((await zoe.start({ webcam: 'agreed' })).statusCode, 303);
      assert.equal((await zoe.upload(JPEG)).statusCode, 201);
      assert.equal((await zoe.submit()).statusCode, 303);
      assert.equal(await snapshotCount(zoe.id), 1);
      const deps = { db: ctx().db, mailDir: ctx().mailDir };
      assert.equal(await sweepRetention({ ...deps, now: () => new Date(clock.at + 29 * DAY) }), 0);
      assert.equal(await snapshotCount(zoe.id), 1, 'within the period');
      assert.ok((await sweepRetention({ ...deps, now: () => new Date(clock.at + 31 * DAY) })) >= 1);
      assert.equal(await snapshotCount(zoe.id), 0);
    });
  },
  { now: clock.now },
);
