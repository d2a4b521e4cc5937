// A German candidate takes the library's personality inventory (big-five) in German, in Debian's
// Chromium (playwright-core, never a downloaded browser): the dashboard, the introduction and all
// 50 statements in German (axe on a German question page), submitted; then the recruiter's report
// (the signed link from GET /v1/candidates/{id}) says it was taken in German and shows the five
// factor scores, scored exactly as in English. Without Chromium it is skipped and says so, unless
// REQUIRE_BROWSER=1.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SHOTS, accessible, haveBrowser, startDemo, type DemoBrowser } from './support/demo-browser.js';

const found = haveBrowser('content translations browser test');

describe('the personality inventory in German, in Chromium', { skip: !found && 'no Chromium' }, () => {
  let demo: DemoBrowser;
  before(async () => {
    demo = await startDemo({ mailDir: 'translations-mail' });
  });
  after(async () => {
    await demo?.close();
  });

  it('a German candidate takes big-five in German; the report says German and shows the five factor scores', async () => {
    const invited = await demo.invite('robin.big5@example.com', ['big-five'], { language: 'de' });
    // A browser that prefers English: the invitation's German wins, for the portal and the content.
    const context = await demo.browser.newContext({ viewport: { width: 1024, height: 900 }, locale: 'en-US' });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));

    await page.goto(invited.link);
    await page.getByRole('heading', { name: 'Guten Tag, Robin' }).waitFor();
    await page.getByRole('heading', { name: 'Persönlichkeit - Big Five (IPIP 50)' }).waitFor();
    await page.getByRole('link', { name: /Öffnen/ }).click();
    await page.getByRole('button', { name: 'Test beginnen' }).waitFor();
    const intro = await page.locator('main').innerText();
    assert.match(intro, /Die folgenden Aussagen beschreiben das Verhalten von Menschen\./);
    assert.match(intro, /Sie haben 15 Minuten für 50 Aussagen/);
    assert.doesNotMatch(intro, /nicht verfügbar|The statements below/);
    await page.getByRole('button', { name: 'Test beginnen' }).click();

    await page.getByRole('heading', { name: 'Frage 1 von 50' }).waitFor();
    const first = await page.locator('#answer-form').innerText();
    assert.match(first, /Ich bin der Mittelpunkt jeder Party\./);
    for (const label of ['Trifft überhaupt nicht zu', 'Trifft eher nicht zu', 'Weder zutreffend noch unzutreffend', 'Trifft eher zu', 'Trifft voll und ganz zu']) {
      assert.ok(first.includes(label), `the scale shows "${label}"`);
    }
    assert.doesNotMatch(first, /Am the life of the party|accurate/);
    await accessible(page, 'a German question page of big-five');
    await page.screenshot({ path: path.join(SHOTS, 'translations-de-question.png'), fullPage: true });

    // Every statement: "Trifft eher zu" (the fourth point), saved and on to the next.
    const prompts = new Set<string>();
    for (let n = 1; n <= 50; n++) {
      await page.getByRole('heading', { name: `Frage ${n} von 50` }).waitFor();
      prompts.add(await page.locator('.prompt').innerText());
      await page.getByLabel('Trifft eher zu', { exact: true }).check();
      await page.getByRole('button', { name: n === 50 ? 'Speichern und überprüfen' : 'Speichern und weiter' }).click();
    }
    assert.equal(prompts.size, 50, 'fifty different statements');
    assert.ok(prompts.has('Ich stecke voller Ideen.'), 'the last statement in German');
    await page.getByRole('button', { name: 'Test abgeben' }).click();
    await page.getByText('Vielen Dank').first().waitFor();

    // The client's view: taken in German; the recruiter's report by its signed link.
    const candidate = (await (await fetch(`${demo.base}/v1/candidates/${invited.candidateId}`, { headers: { 'x-api-key': demo.key, instance: 'demo' } })).json()) as {
      invitations: { contentLanguage?: string; reportUrl: string }[];
    };
    assert.equal(candidate.invitations[0]!.contentLanguage, 'de');
    const report = await context.newPage();
    await report.goto(candidate.invitations[0]!.reportUrl);
    await report.getByRole('heading', { name: 'Personality - Big Five (IPIP 50)' }).waitFor();
    const figures = await report.locator('dl.figures').first().innerText();
    assert.match(figures, /Language\s+German \(de\); the questions below are in English, as written/);
    // The five factors, each scored from its ten statements as in English: "Trifft eher zu" is
    // "Moderately accurate", 4 of 5 when keyed +, 2 when keyed - (docs/library.md).
    const factors = await report.locator('table.chart-data tbody tr').evaluateAll((rows) =>
      rows.map((r) =>
        [...r.children]
          .slice(0, 2)
          .map((cell) => cell.textContent?.trim())
          .join(': '),
      ),
    );
    assert.deepEqual(factors, ['Extraversion: 50 %', 'Agreeableness: 55 %', 'Conscientiousness: 55 %', 'Emotional Stability: 35 %', 'Intellect/Imagination: 60 %']);
    // The IPIP publishes no norms, so the report compares with no norm group: no percentile until
    // enough candidates of this instance completed the version.
    assert.match(figures, /Percentile\s+not yet: 1 completed this version/);
    await report.screenshot({ path: path.join(SHOTS, 'translations-de-report.png'), fullPage: true });
    assert.deepEqual(errors, []);
    await context.close();
  });
});
