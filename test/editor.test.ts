// The console's assessment editor: drafts saved, discarded and published by the assessments
// module's commands (never seen by candidates; a published draft is a new version, and attempts
// already started keep theirs), validation in the importer's words with line numbers, reviewers
// refused, bad input refused with nothing changed, the line diff between versions, and the YAML
// round trip of every catalogue assessment.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { before, describe, it } from 'node:test';
import fc from 'fast-check';
import { runCommand } from '../src/domain/command.js';
import { parseAssessment } from '../src/modules/assessments/content.js';
import { diffLines, diffText } from '../src/modules/assessments/diff.js';
import { contentYaml, saveDraft, sameContent } from '../src/modules/assessments/drafts.js';
import { publishLibraryFile } from './support/library.js';
import { NEW_TEMPLATE } from '../src/console/assessments/editor.js';
import { describeEachStore, sampleAssessment } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';
import { candidate } from './support/portal.js';

const CATALOGUE = path.join(import.meta.dirname, '..', 'catalogue');

describeEachStore('assessment editor', (ctx) => {
  let instance: string;
  let other: string;
  let key: string;
  let manager: Awaited<ReturnType<typeof consoleAs>>;
  let reviewer: Awaited<ReturnType<typeof consoleAs>>;

  before(async () => {
    instance = await ctx().instance('edit');
    other = await ctx().instance('other');
    assert.equal((await ctx().publish(instance, sampleAssessment('alpha'))).statusCode, 201);
    assert.equal((await ctx().publish(other, sampleAssessment('secret'))).statusCode, 201);
    key = await ctx().key([instance]);
    const m = await consoleUser(ctx(), `manager-${instance}@example.com`, 'manager', [instance]);
    manager = await consoleAs(ctx(), `manager-${instance}@example.com`, m.password);
    const r = await consoleUser(ctx(), `reviewer-${instance}@example.com`, 'reviewer', [instance]);
    reviewer = await consoleAs(ctx(), `reviewer-${instance}@example.com`, r.password);
  });

  const versions = async (slug = 'alpha') =>
    (
      await ctx().db.query<{ version: number; prompt: string }>(
        `SELECT v.version, v.content->'questions'->0->>'prompt' AS prompt FROM assessment_versions v JOIN assessments a ON a.id = v.assessment_id
          JOIN instances i ON i.id = a.instance_id WHERE i.name = $1 AND a.slug = $2 ORDER BY v.version`,
        [instance, slug],
      )
    ).rows;
  const drafts = async () => (await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM assessment_drafts')).rows[0]!.n;
  const edit = (fields: Record<string, string>, who = manager, slug = 'alpha') => who.post(`/console/assessments/${slug}/edit`, { instance, ...fields });

  /** A candidate invited now, with the portal session opened and the attempt started; returns a GET in their session. */
  async function startedCandidate(email: string) {
    const c = await candidate(ctx(), { instance, key }, { email, firstName: 'Cand', lastName: 'Idate' }, ['alpha']);
    const started = await c.form('/portal/a/alpha/start');
    assert.equal(started.statusCode, 303, started.body);
    return (url: string) => c.get(url);
  }

  it('the editor starts from the published version as YAML; a saved draft changes nothing candidates get', async () => {
    const page = await manager.get(`/console/assessments/alpha/edit?instance=${instance}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /No draft: this is version 1 as published/);
    assert.match(page.body, /No problems: this would publish/);
    const source = /<textarea id="editor-source"[^>]*>([^]*?)<\/textarea>/
      .exec(page.body)![1]!
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, '&');
    const parsed = parseAssessment(source);
    assert.ok(parsed.ok);
    assert.ok(sameContent(parsed.content, parseAssessment(sampleAssessment('alpha')).ok && (parseAssessment(sampleAssessment('alpha')) as { content: unknown }).content));

    const changed = source.replace('What is 2 + 2?', 'What is 3 + 3? <b>bold</b>');
    const saved = await edit({ action: 'save', source: changed });
    assert.equal(saved.statusCode, 303, saved.body);
    assert.equal(saved.headers.location, `/console/assessments/alpha/edit?instance=${instance}&saved=1`);
    assert.deepEqual(await versions(), [{ version: 1, prompt: 'What is 2 + 2?' }]);
    const again = await manager.get(`/console/assessments/alpha/edit?instance=${instance}&saved=1`);
    assert.match(again.body, /Draft saved\. Candidates do not see it/);
    assert.match(again.body, new RegExp(`Draft saved by manager-${instance}@example.com`));
    assert.match(again.body, /What is 3 \+ 3\? &lt;b&gt;bold&lt;\/b&gt;/);
    // A candidate gets the published version.
    const get = await startedCandidate(`first-${instance}@example.com`);
    const question = await get('/portal/a/alpha?q=1');
    assert.match(question.body, /What is 2 \+ 2\?/);
    // The draft against the published version, escaped.
    const diff = await manager.get(`/console/assessments/alpha/versions?instance=${instance}`);
    assert.equal(diff.statusCode, 200, diff.body);
    assert.match(diff.body, /Changes from version 1 to the draft: 1 line added, 1 removed/);
    assert.match(diff.body, /<tr class="diff-added">[^]*?What is 3 \+ 3\? &lt;b&gt;bold&lt;\/b&gt;/);
    assert.match(diff.body, /<tr class="diff-removed">[^]*?What is 2 \+ 2\?/);
    const audit = await ctx().db.query<{ action: string }>("SELECT action FROM audit_log WHERE target = $1 AND action LIKE 'assessment.draft.%'", [`${instance}/alpha`]);
    assert.deepEqual(
      audit.rows.map((r) => r.action),
      ['assessment.draft.save'],
    );
  });

  it('publishing the draft makes a new version: a candidate who started keeps theirs, a new one gets the new', async () => {
    const get = await startedCandidate(`started-${instance}@example.com`);
    const draft = /<textarea id="editor-source"[^>]*>([^]*?)<\/textarea>/.exec((await manager.get(`/console/assessments/alpha/edit?instance=${instance}`)).body)![1]!;
    const source = draft
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    const published = await edit({ action: 'publish', source });
    assert.equal(published.statusCode, 303, published.body);
    assert.equal(published.headers.location, `/console/assessments/alpha/edit?instance=${instance}&published=2&outcome=updated`);
    assert.deepEqual(await versions(), [
      { version: 1, prompt: 'What is 2 + 2?' },
      { version: 2, prompt: 'What is 3 + 3? <b>bold</b>' },
    ]);
    assert.equal(await drafts(), 0);
    assert.match((await get('/portal/a/alpha?q=1')).body, /What is 2 \+ 2\?/);
    const fresh = await startedCandidate(`fresh-${instance}@example.com`);
    assert.match((await fresh('/portal/a/alpha?q=1')).body, /What is 3 \+ 3\? &lt;b&gt;bold&lt;\/b&gt;/);
    const page = await manager.get(published.headers.location as string);
    assert.match(page.body, /Published version 2\. Candidates invited from now on get it; those who started keep theirs\./);
    // Publishing the published text again (as the editor shows it) changes nothing.
    const shown = /<textarea id="editor-source"[^>]*>([^]*?)<\/textarea>/.exec(page.body)![1]!;
    const same = await edit({
      action: 'publish',
      source: shown
        .replace(/&quot;/g, '"')
        .replace(/&#39;/g, "'")
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&'),
    });
    assert.equal(same.headers.location, `/console/assessments/alpha/edit?instance=${instance}&published=2&outcome=unchanged`);
    assert.equal((await versions()).length, 2);
    const audit = await ctx().db.query<{ action: string }>("SELECT action FROM audit_log WHERE target LIKE $1 AND action LIKE 'assessment.%' AND actor LIKE 'user:%' ORDER BY id", [
      `${instance}/alpha%`,
    ]);
    assert.deepEqual(
      audit.rows.map((r) => r.action),
      ['assessment.draft.save', 'assessment.import', 'assessment.draft.publish', 'assessment.draft.publish'],
    );
  });

  it('the check names each problem in the importer’s words with its line, and publishing it changes nothing', async () => {
    const broken = sampleAssessment('alpha')
      .replace('passScore: 70', 'passScore: 170')
      .replace('        correct: true\n  - id: q2', '  - id: q2')
      .replace('category: writing', 'category: nowhere');
    const expected = parseAssessment(broken);
    assert.ok(!expected.ok);
    const checked = await manager.post('/console/assessments/validate', { instance, assessment: 'alpha', source: broken });
    assert.equal(checked.statusCode, 200, checked.body);
    const body = checked.json() as { errors: { path: string; line?: number; column?: number; message: string }[]; check: string; summary: unknown };
    assert.deepEqual(body.errors, expected.errors);
    assert.ok(body.errors.every((e) => typeof e.line === 'number'));
    assert.equal(body.summary, null);
    assert.match(body.check, new RegExp(`Line ${expected.errors[0]!.line}`));
    const refused = await edit({ action: 'publish', source: broken });
    assert.equal(refused.statusCode, 400);
    for (const e of expected.errors) assert.ok(refused.body.includes(`<strong>Line ${e.line}, column ${e.column}:</strong> <code>${e.path}</code>`), e.message);
    assert.match(refused.body, /Nothing was published/);
    // Valid content: no problems, and the outline (categories, weights, questions by type).
    const ok = (await manager.post('/console/assessments/validate', { instance, assessment: 'alpha', source: sampleAssessment('alpha') })).json() as {
      errors: unknown[];
      summary: { categories: { id: string; weight: number; questions: number }[]; types: Record<string, number> };
      outline: string;
    };
    assert.deepEqual(ok.errors, []);
    assert.deepEqual(
      ok.summary.categories.map((c) => [c.id, c.weight, c.questions]),
      [
        ['reasoning', 2, 3],
        ['writing', 1, 1],
      ],
    );
    assert.deepEqual(ok.summary.types, { 'single-choice': 1, 'multiple-choice': 1, 'short-answer': 1, 'free-text': 1 });
    assert.match(ok.outline, /Single choice 1, Multiple choice 1, Short answer 1, Free text 1/);
    // The draft of alpha must stay alpha; a new assessment may not take an id in use.
    const renamed = (await manager.post('/console/assessments/validate', { instance, assessment: 'alpha', source: sampleAssessment('beta') })).json() as { errors: unknown[] };
    assert.deepEqual(renamed.errors, [
      { path: 'id', line: 1, column: 1, message: 'must stay "alpha": this is the draft of alpha (write a new assessment to publish another one)' },
    ]);
    const taken = (await manager.post('/console/assessments/validate', { instance, assessment: '', source: sampleAssessment('alpha') })).json() as { errors: unknown[] };
    assert.deepEqual(taken.errors, [{ path: 'id', line: 1, column: 1, message: '"alpha" is an assessment of this instance already: edit that one, or choose another id' }]);
    assert.equal((await versions()).length, 2);
    assert.equal(await drafts(), 0);
  });

  it('a new assessment is written, previewed and published from the editor', async () => {
    const page = await manager.get(`/console/assessments/new?instance=${instance}`);
    assert.equal(page.statusCode, 200, page.body);
    assert.match(page.body, /<h1>New assessment<\/h1>/);
    const preview = await manager.post('/console/assessments/preview', { instance, assessment: '', source: NEW_TEMPLATE });
    assert.equal(preview.statusCode, 200, preview.body);
    assert.match(preview.body, /Preview: My assessment/);
    assert.match(preview.body, /Which option is right\?/);
    assert.match(String(preview.headers['content-security-policy']), /frame-ancestors 'self'/);
    assert.equal(preview.headers['x-frame-options'], 'SAMEORIGIN');
    // Every other console page may still not be framed.
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal((await manager.post('/console/assessments/new', { instance, action: 'save', source: 'id: [unclosed' })).statusCode, 303);
    assert.match((await manager.get(`/console/assessments/new?instance=${instance}`)).body, /id: \[unclosed/);
    const published = await manager.post('/console/assessments/new', { instance, action: 'publish', source: NEW_TEMPLATE });
    assert.equal(published.statusCode, 303, published.body);
    assert.equal(published.headers.location, `/console/assessments/my-assessment/edit?instance=${instance}&published=1&outcome=created`);
    assert.equal(await drafts(), 0);
    const list = await manager.get(`/console/assessments?instance=${instance}`);
    assert.match(list.body, /My assessment <span class="hint">\(version 1\)<\/span>[\s\S]*<dt>Id \(for the API and the CLI\)<\/dt><dd><code>my-assessment<\/code>/);
    assert.match(list.body, /href="\/console\/assessments\/my-assessment\/edit\?instance=/);
  });

  it('a draft is discarded; the published version stays', async () => {
    assert.equal((await edit({ action: 'save', source: sampleAssessment('alpha', { name: 'Draft name' }) })).statusCode, 303);
    assert.equal(await drafts(), 1);
    const discarded = await edit({ action: 'discard' });
    assert.equal(discarded.statusCode, 303);
    assert.equal(discarded.headers.location, `/console/assessments/alpha/edit?instance=${instance}&discarded=1`);
    assert.equal(await drafts(), 0);
    assert.equal((await versions()).length, 2);
    assert.equal((await edit({ action: 'discard' })).statusCode, 404);
  });

  it('reviewers may read versions but not edit, check, preview, save, discard or publish', async () => {
    assert.equal((await reviewer.get(`/console/assessments/alpha/edit?instance=${instance}`)).statusCode, 403);
    assert.equal((await reviewer.get(`/console/assessments/new?instance=${instance}`)).statusCode, 403);
    for (const action of ['save', 'publish', 'discard']) assert.equal((await edit({ action, source: sampleAssessment('alpha', { name: 'Reviewer' }) }, reviewer)).statusCode, 403);
    assert.equal((await reviewer.post('/console/assessments/validate', { instance, assessment: 'alpha', source: 'x' })).statusCode, 403);
    assert.equal((await reviewer.post('/console/assessments/preview', { instance, assessment: 'alpha', source: 'x' })).statusCode, 403);
    const list = await reviewer.get(`/console/assessments?instance=${instance}`);
    assert.doesNotMatch(list.body, /\/edit\?instance=/);
    assert.equal((await reviewer.get(`/console/assessments/alpha/versions?instance=${instance}`)).statusCode, 200);
    // The command refuses a reviewer whatever the surface.
    const instanceRow = (await ctx().db.query<{ id: string }>('SELECT id FROM instances WHERE name = $1', [instance])).rows[0]!;
    await assert.rejects(
      runCommand(ctx().db, { actor: { kind: 'user', id: 'x', email: 'r@example.com', role: 'reviewer' }, requestId: 't', now: new Date() }, (c) =>
        saveDraft(c, { instance: { id: instanceRow.id, name: instance }, assessment: 'alpha', source: 'id: alpha' }),
      ),
      /Reviewers may not edit assessments/,
    );
    assert.equal(await drafts(), 0);
    assert.equal((await versions()).length, 2);
  });

  it('bad input gets a clear error and changes nothing', async () => {
    const oversized = `${sampleAssessment('alpha')}# ${'x'.repeat(520 * 1024)}\n`;
    const big = await edit({ action: 'save', source: oversized });
    assert.equal(big.statusCode, 400);
    assert.match(big.body, /<code>source<\/code> is 52\d KiB; a draft may be at most 512 KiB/);
    const binary = await edit({ action: 'save', source: 'id: alpha\u0000\u0001' });
    assert.equal(binary.statusCode, 400);
    assert.match(binary.body, /must not contain control characters/);
    // The command refuses it too, whoever calls it.
    const instanceRow = (await ctx().db.query<{ id: string }>('SELECT id FROM instances WHERE name = $1', [instance])).rows[0]!;
    await assert.rejects(
      runCommand(ctx().db, { actor: { kind: 'admin-token' }, requestId: 't', now: new Date() }, (c) =>
        saveDraft(c, { instance: { id: instanceRow.id, name: instance }, assessment: 'alpha', source: 'id: alpha\u0000' }),
      ),
      /not a text document/,
    );
    const invalidYaml = await edit({ action: 'publish', source: 'id: alpha\nname: [unclosed\n' });
    assert.equal(invalidYaml.statusCode, 400);
    const yamlErrors = parseAssessment('id: alpha\nname: [unclosed\n');
    assert.ok(!yamlErrors.ok);
    assert.ok(invalidYaml.body.includes(`<strong>Line ${yamlErrors.errors[0]!.line}`));
    assert.equal((await manager.get(`/console/assessments/nosuch/edit?instance=${instance}`)).statusCode, 404);
    assert.equal((await edit({ action: 'save', source: 'id: nosuch' }, manager, 'nosuch')).statusCode, 404);
    assert.equal((await edit({ action: 'save', source: 'id: x' }, manager, 'Bad%20Id')).statusCode, 404);
    // Another instance's assessment: not under this instance's name, and that instance is not the manager's.
    assert.equal((await manager.get(`/console/assessments/secret/edit?instance=${instance}`)).statusCode, 404);
    assert.equal((await manager.get(`/console/assessments/secret/edit?instance=${other}`)).statusCode, 403);
    assert.equal((await manager.post('/console/assessments/secret/edit', { instance: other, action: 'save', source: 'id: secret' })).statusCode, 403);
    assert.equal((await manager.get(`/console/assessments/secret/versions?instance=${instance}`)).statusCode, 404);
    assert.equal((await edit({ action: 'rename', source: 'id: alpha' })).statusCode, 400);
    assert.equal((await manager.get(`/console/assessments/alpha/versions?instance=${instance}&from=7`)).statusCode, 400);
    assert.equal((await manager.get(`/console/assessments/alpha/versions/9/yaml?instance=${instance}`)).statusCode, 404);
    assert.equal(await drafts(), 0);
    assert.equal((await versions()).length, 2);
    assert.equal((await versions('secret')).length, 0);
  });

  it('exports a version as YAML that publishes as the same content; every catalogue assessment round-trips', async () => {
    const exported = await manager.get(`/console/assessments/alpha/versions/1/yaml?instance=${instance}`);
    assert.equal(exported.statusCode, 200);
    assert.match(String(exported.headers['content-type']), /^application\/yaml/);
    const parsed = parseAssessment(exported.body);
    assert.ok(parsed.ok);
    assert.match(parsed.content.questions[0]!.prompt, /What is 2 \+ 2\?/);
    for (const file of readdirSync(CATALOGUE).filter((f) => f.endsWith('.yaml'))) {
      const first = parseAssessment(readFileSync(path.join(CATALOGUE, file), 'utf8'));
      assert.ok(first.ok, file);
      // parse → serialise → parse is equal (the fields in the editor's order) ...
      const second = parseAssessment(contentYaml(first.content));
      assert.ok(second.ok, file);
      assert.deepEqual(second.content, first.content, file);
      // ... and from the stored version (the database orders fields its own way), publishing unchanged is no new version.
      // (A file with media is published with them, as a folder; its version names the stored files.)
      assert.ok((await publishLibraryFile(ctx(), instance, path.join(CATALOGUE, file))).statusCode < 300, file);
      const id = first.content.id;
      const shown = await manager.get(`/console/assessments/${id}/versions/1/yaml?instance=${instance}`);
      const again = parseAssessment(shown.body);
      assert.ok(again.ok && sameContent(withoutMediaNames(again.content), withoutMediaNames(first.content)), file);
      const published = await edit({ action: 'publish', source: shown.body }, manager, id);
      assert.equal(published.headers.location, `/console/assessments/${id}/edit?instance=${instance}&published=1&outcome=unchanged`, file);
    }
  });
});

/** Content with each media reference's target left out (a published version names the stored file, not the given path). */
const withoutMediaNames = (content: unknown) => JSON.parse(JSON.stringify(content).replace(/\]\(media[:/][^)\s]+\)/g, '](…)')) as typeof content;

describe('line diff', () => {
  it('is a shortest edit: the kept lines are a longest common subsequence, and it rebuilds both texts', () => {
    const lcs = (a: string[], b: string[]) => {
      const t = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
      for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) t[i]![j] = a[i - 1] === b[j - 1] ? t[i - 1]![j - 1]! + 1 : Math.max(t[i - 1]![j]!, t[i]![j - 1]!);
      return t[a.length]![b.length]!;
    };
    const lines = fc.array(fc.constantFrom('a', 'b', 'c', 'd', ''), { maxLength: 40 });
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const diff = diffLines(a, b);
        const old = diff.filter((l) => l.kind !== 'added');
        const now = diff.filter((l) => l.kind !== 'removed');
        assert.deepEqual(
          old.map((l) => l.text),
          a,
        );
        assert.deepEqual(
          now.map((l) => l.text),
          b,
        );
        assert.deepEqual(
          old.map((l) => l.oldLine),
          a.map((_, i) => i + 1),
        );
        assert.deepEqual(
          now.map((l) => l.newLine),
          b.map((_, i) => i + 1),
        );
        assert.equal(diff.filter((l) => l.kind === 'same').length, lcs(a, b));
      }),
      { numRuns: 500 },
    );
  });

  it('says which lines changed, with their numbers', () => {
    assert.deepEqual(diffText('a\nb\nc\n', 'a\nB\nc\nd\n'), [
      { kind: 'same', text: 'a', oldLine: 1, newLine: 1 },
      { kind: 'removed', text: 'b', oldLine: 2 },
      { kind: 'added', text: 'B', newLine: 2 },
      { kind: 'same', text: 'c', oldLine: 3, newLine: 3 },
      { kind: 'added', text: 'd', newLine: 4 },
    ]);
    assert.deepEqual(diffText('', ''), []);
    // Past the bound of edits, the middle is replaced whole (still correct, only longer).
    const many = diffLines(['x', ...'abcdef'], ['x', ...'ghijkl'], 3);
    assert.deepEqual(
      many.map((l) => l.kind),
      ['same', ...new Array(6).fill('removed'), ...new Array(6).fill('added')],
    );
  });
});
