// A candidate invited in German takes every translated assessment of the library, in Debian's
// Chromium (playwright-core): on every question page (and the typing test's), the page's text
// holds German text of that assessment and no English text of its content, compared against the
// strings of the English content (prompts, options, table cells, category names, the typing
// passage) that its German translation does not also use (codes, names and figures are the same in
// both). Pages of different assessments are read in parallel. Without Chromium it is skipped and
// says so, unless REQUIRE_BROWSER=1.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { parseAssessment } from '../src/modules/assessments/content.js';
import { questionCount, type AssessmentContent } from '../src/modules/assessments/content-schema.js';
import { contentLanguages, translationsOf } from '../src/modules/assessments/translations.js';
import { catalogueFiles } from '../src/seed.js';
import { haveBrowser, startDemo, type DemoBrowser } from './support/demo-browser.js';

const found = haveBrowser('library translations browser test');

const translated = catalogueFiles()
  .map((file) => {
    const parsed = parseAssessment(readFileSync(file, 'utf8'));
    if (!parsed.ok) throw new Error(file);
    return parsed.content;
  })
  .filter((content) => contentLanguages(content).includes('de'));

/** Letters and digits only, one space between words: what a page's text and the content's Markdown have in common. */
const plain = (text: string) => text.replace(/[^\p{L}\p{N}]+/gu, ' ').trim();

/** Texts cut at lines, table cells and sentences, as plain words. */
const cut = (texts: string[]) => texts.flatMap((text) => text.split(/\n|\||(?<=[.?!:;])\s/).map(plain));

/** The candidate-facing texts of the English content shown on question pages. */
const englishTexts = (content: AssessmentContent) => [
  ...content.categories.map((c) => c.name),
  ...content.questions.flatMap((q) => [q.prompt, ...('options' in q ? q.options.map((o) => o.text) : [])]),
  ...(content.typingTest ? [content.typingTest.passage] : []),
];

/** The texts the German translation itself gives (not the English it falls back to). */
const germanTexts = (content: AssessmentContent) => {
  const de = translationsOf(content).de!;
  return [
    ...Object.values(de.categories ?? {}),
    ...Object.values(de.questions ?? {}).flatMap((q) => [q.prompt ?? '', ...(q.options ?? [])]),
    ...(de.typingTest ? [de.typingTest.passage] : []),
  ];
};

/** For each assessment: the English strings its German pages must not show, and the German ones they do. */
function vocabulary(content: AssessmentContent) {
  const english = cut(englishTexts(content));
  const german = cut(germanTexts(content));
  const englishText = ` ${english.join(' | ')} `;
  const germanText = ` ${german.join(' | ')} `;
  const long = (s: string) => s.split(' ').length >= 3;
  return {
    english: [...new Set(english.filter((s) => long(s) && !germanText.includes(s)))],
    german: [...new Set(german.filter((s) => long(s) && !englishText.includes(s)))],
  };
}

describe('the translated library in German, in Chromium', { skip: !found && 'no Chromium' }, () => {
  let demo: DemoBrowser;
  before(async () => {
    demo = await startDemo({ mailDir: 'library-translations-mail' });
  });
  after(async () => {
    await demo?.close();
  });

  it('a candidate invited in German sees no English question text on any question page of any translated assessment', async () => {
    assert.ok(translated.length >= 17, `${translated.length} translated assessments`);
    const invited = await demo.invite(
      'lena.library@example.com',
      translated.map((c) => c.id),
      { language: 'de' },
    );
    const context = await demo.browser.newContext({ viewport: { width: 1024, height: 900 }, locale: 'en-US' });
    const errors: string[] = [];
    const first = await context.newPage();
    await first.goto(invited.link);
    await first.getByRole('heading', { name: 'Guten Tag, Robin' }).waitFor();

    const problems: string[] = [];
    let pagesRead = 0;
    const take = async (page: Page, content: AssessmentContent) => {
      const { english, german } = vocabulary(content);
      assert.ok(english.length > 0 && german.length > 0, content.id);
      await page.goto(`${demo.base}/portal/a/${content.id}`);
      await page.getByRole('button', { name: 'Test beginnen' }).click();
      await page.waitForURL(/\?q=1$|\/portal\/a\/[^/?]+$/);
      const total = questionCount(content) + (content.typingTest ? 1 : 0);
      for (let n = 1; n <= total; n++) {
        await page.goto(`${demo.base}/portal/a/${content.id}?q=${n}`, { waitUntil: 'domcontentloaded' });
        await page.getByRole('heading', { name: n <= questionCount(content) ? `Frage ${n} von ${total}` : 'Tipptest' }).waitFor();
        const text = ` ${plain(await page.locator('main').innerText())} `;
        pagesRead++;
        const shown = english.filter((s) => text.includes(` ${s} `));
        if (shown.length > 0) problems.push(`${content.id} page ${n}: ${shown.join(' / ')}`);
        if (!german.some((s) => text.includes(` ${s} `))) problems.push(`${content.id} page ${n}: no German text of the assessment`);
      }
    };
    // Three pages of one context (one candidate) at a time, each taking assessments in turn.
    const queue = [...translated];
    const pages = [first, await context.newPage(), await context.newPage()];
    for (const page of pages) page.on('pageerror', (error) => errors.push(error.message));
    await Promise.all(
      pages.map(async (page) => {
        for (let content = queue.shift(); content; content = queue.shift()) await take(page, content);
      }),
    );
    assert.deepEqual(problems, []);
    const expected = translated.reduce((sum, c) => sum + questionCount(c) + (c.typingTest ? 1 : 0), 0);
    assert.equal(pagesRead, expected);
    assert.deepEqual(errors, []);
    await context.close();
  });
});
