// Media uploaded from the console's assessment editor (a multipart form, without JavaScript):
// stored by the assessments module's command with its alternative text or transcript, the text
// in the editor kept as it was (unsaved), the reference to paste shown, and the file listed with
// a preview once the text names it; publishing the text records it as the version's. Each refusal
// (a file of another type, too large, none, no alternative text, a "]" in it, a bad form token, a
// reviewer) is said beside its field and stores nothing.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import sharp from 'sharp';
import { MEDIA_MAX_BYTES } from '../src/modules/assessments/media.js';
import { describeEachStore, sampleAssessment } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';

const unescape = (text: string) =>
  text
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

describeEachStore('media uploaded in the assessment editor', (ctx) => {
  let instance: string;
  let manager: Awaited<ReturnType<typeof consoleAs>>;
  let reviewer: Awaited<ReturnType<typeof consoleAs>>;
  let png: Buffer;

  before(async () => {
    instance = await ctx().instance('media-edit');
    assert.equal((await ctx().publish(instance, sampleAssessment('alpha'))).statusCode, 201);
    const m = await consoleUser(ctx(), `manager-${instance}@example.com`, 'manager', [instance]);
    manager = await consoleAs(ctx(), `manager-${instance}@example.com`, m.password);
    const r = await consoleUser(ctx(), `reviewer-${instance}@example.com`, 'reviewer', [instance]);
    reviewer = await consoleAs(ctx(), `reviewer-${instance}@example.com`, r.password);
    png = await sharp({ create: { width: 30, height: 20, channels: 3, background: '#2a6' } })
      .png()
      .toBuffer();
  });

  const stored = async () => (await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM assessment_media')).rows[0]!.n;
  const uploads = async () => (await ctx().db.query<{ n: number }>("SELECT count(*)::int AS n FROM audit_log WHERE action = 'assessment.media.upload'")).rows[0]!.n;
  const drafts = async () => (await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM assessment_drafts')).rows[0]!.n;

  /** The editor's form posted by its Upload button, as a browser sends it: multipart, the text with it. */
  function upload(fields: { file?: { name: string; bytes: Buffer; type?: string }; text?: string; source?: string; csrf?: string }, who = manager) {
    const boundary = '----acEditorMedia' + Math.random().toString(16).slice(2);
    const part = (name: string, body: Buffer | string, file?: { name: string; type: string }) =>
      Buffer.concat([
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"${file ? `; filename="${file.name}"\r\nContent-Type: ${file.type}` : ''}\r\n\r\n`),
        Buffer.from(body),
        Buffer.from('\r\n'),
      ]);
    const payload = Buffer.concat([
      part('_csrf', fields.csrf ?? who.csrf),
      part('instance', instance),
      part('assessment', 'alpha'),
      part('source', fields.source ?? sampleAssessment('alpha')),
      part('action', 'upload'),
      fields.file
        ? part('file', fields.file.bytes, { name: fields.file.name, type: fields.file.type ?? 'application/octet-stream' })
        : part('file', '', { name: '', type: 'application/octet-stream' }),
      part('text', fields.text ?? ''),
      Buffer.from(`--${boundary}--\r\n`),
    ]);
    return ctx().request({
      method: 'POST',
      url: '/console/assessments/media',
      headers: { cookie: who.cookie, 'content-type': `multipart/form-data; boundary=${boundary}` },
      payload,
    });
  }

  it('the editor has the upload in its form, posted as multipart with the text', async () => {
    const page = await manager.get(`/console/assessments/alpha/edit?instance=${instance}`);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /<button type="submit" name="action" value="upload" formaction="\/console\/assessments\/media" formenctype="multipart\/form-data">Upload<\/button>/);
    assert.match(page.body, /<input type="file" id="media-file" name="file" accept="[^"]*image\/png[^"]*audio\/mpeg/);
    assert.match(page.body, /The text names no stored picture, sound or video yet/);
  });

  it('stores an uploaded picture with its alternative text, keeps the text unsaved, and shows the reference; the text naming it publishes it as the version’s', async () => {
    const source = sampleAssessment('alpha').replace('What is 2 + 2?', 'What is 2 + 2, unsaved?');
    const before = await stored();
    const response = await upload({ file: { name: 'C:\\Users\\mia\\chart.png', bytes: png, type: 'image/png' }, text: ' A green\nrectangle ', source });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(await stored(), before + 1);
    assert.equal(await uploads(), 1);
    assert.equal(await drafts(), 0, 'uploading saves no draft');
    const reference = unescape(/<textarea id="media-reference"[^>]*>([^<]*)<\/textarea>/.exec(response.body)![1]!);
    const match = /^!\[A green rectangle\]\(media:([0-9a-f]{64})\.png\)$/.exec(reference);
    assert.ok(match, reference);
    const sha256 = match[1]!;
    assert.ok(response.body.includes(`<img class="media" src="/portal/media/${sha256}.png" alt="A green rectangle"`), 'the upload is previewed');
    assert.match(unescape(/<textarea id="editor-source"[^>]*>([^]*?)<\/textarea>/.exec(response.body)![1]!), /What is 2 \+ 2, unsaved\?/);
    const served = await ctx().request({ method: 'GET', url: `/portal/media/${sha256}.png` });
    assert.equal(served.statusCode, 200);
    assert.equal(served.headers['content-type'], 'image/png');
    const audit = await ctx().db.query<{ target: string }>("SELECT target FROM audit_log WHERE action = 'assessment.media.upload'");
    assert.deepEqual(
      audit.rows.map((r) => r.target),
      [`${instance}/alpha/${sha256}.png`],
    );

    // The text naming it: listed with its preview, and published as the version's media.
    const withPicture = sampleAssessment('alpha').replace('What is 2 + 2?', `"What is 2 + 2? ${reference}"`);
    const saved = await manager.post(`/console/assessments/alpha/edit`, { instance, action: 'save', source: withPicture });
    assert.equal(saved.statusCode, 303, saved.body);
    const page = await manager.get(`/console/assessments/alpha/edit?instance=${instance}`);
    assert.match(page.body, /1 file named in the text above/);
    assert.ok(page.body.includes(`<code class="media-reference">media:${sha256}.png</code>`));
    assert.ok(page.body.includes(`<img class="media" src="/portal/media/${sha256}.png" alt="A green rectangle"`));
    const published = await manager.post(`/console/assessments/alpha/edit`, { instance, action: 'publish', source: withPicture });
    assert.equal(published.statusCode, 303, published.body);
    const uses = await ctx().db.query<{ version: number; name: string }>(
      `SELECT u.version, u.name FROM assessment_version_media u JOIN assessments a ON a.id = u.assessment_id JOIN instances i ON i.id = a.instance_id WHERE i.name = $1`,
      [instance],
    );
    assert.deepEqual(uses.rows, [{ version: 2, name: `${sha256}.png` }]);
  });

  it('each refusal is said beside its field and stores nothing', async () => {
    const before = { stored: await stored(), uploads: await uploads(), drafts: await drafts() };
    const big = Buffer.concat([png.subarray(0, 8), Buffer.alloc(MEDIA_MAX_BYTES.image + 1024)]);
    const cases: [string, Parameters<typeof upload>[0], 'file' | 'text', RegExp][] = [
      [
        'a file of another type',
        { file: { name: 'notes.pdf', bytes: Buffer.from('%PDF-1.7\n1 0 obj\n'), type: 'image/png' }, text: 'Notes' },
        'file',
        /notes\.pdf: is not an accepted media type, judged by its bytes/,
      ],
      ['too large', { file: { name: 'huge.png', bytes: big, type: 'image/png' }, text: 'Huge' }, 'file', /huge\.png: is 2\.0 MB; image files may be at most 2 MB/],
      ['no file', { text: 'Something' }, 'file', /choose a picture, a sound or a video to upload/],
      ['a picture without alternative text', { file: { name: 'chart.png', bytes: png }, text: '   ' }, 'text', /is required for a picture: write what it shows/],
      [
        'a sound without a transcript',
        { file: { name: 'clip.wav', bytes: Buffer.concat([Buffer.from('RIFF'), Buffer.alloc(4), Buffer.from('WAVE')]) } },
        'text',
        /is required for a sound: write its transcript or a description/,
      ],
      ['a "]" in the text', { file: { name: 'chart.png', bytes: png }, text: 'A [bracketed] chart' }, 'text', /must not contain "\]"/],
      [
        'SVG with script',
        { file: { name: 'bad.svg', bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>') }, text: 'Bad' },
        'file',
        /bad\.svg/,
      ],
    ];
    for (const [what, fields, field, message] of cases) {
      const response = await upload({ ...fields, source: 'id: alpha # kept as posted' });
      assert.equal(response.statusCode, 400, what);
      assert.match(response.body, /The file was not uploaded; nothing changed\./, what);
      const error = new RegExp(`<p class="field-error" id="media-${field}-error">([^<]*)</p>`).exec(response.body);
      assert.ok(error, `${what}: an error beside the ${field}`);
      assert.match(unescape(error[1]!), message, what);
      assert.match(response.body, new RegExp(`id="media-${field}"[^>]*aria-describedby="media-help media-${field}-error" aria-invalid="true"`), what);
      assert.match(response.body, /id="editor-source"[^>]*>id: alpha # kept as posted<\/textarea>/, what);
    }
    // A form token that is not the session's, and a reviewer: refused before anything is read.
    const forged = await upload({ file: { name: 'chart.png', bytes: png }, text: 'A chart', csrf: 'forged' });
    assert.equal(forged.statusCode, 403);
    assert.match(forged.body, /The form is out of date or came from another site/);
    const byReviewer = await upload({ file: { name: 'chart.png', bytes: png }, text: 'A chart' }, reviewer);
    assert.equal(byReviewer.statusCode, 403);
    assert.deepEqual({ stored: await stored(), uploads: await uploads(), drafts: await drafts() }, before);
  });
});
