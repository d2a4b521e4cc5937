// The console's frame in a real browser (Debian's Chromium with playwright-core), at 1280 px and at
// 390 px: every page of the navigation opens with axe clean, the navigation never wraps into rows
// (read from the rendered boxes), the page's heading is on the first screen, every checkbox and
// radio sits on the line of its label (from the boxes, not the markup), the menu button works
// without script, and the compare page draws its 0-100 track.
// One browser, one app; the pages of a width are opened in parallel.
// UPDATE_SCREENSHOTS=1 writes docs/images/console-*-{1280,390}.png (else artifacts/screenshots/).
// Skipped without Chromium unless REQUIRE_BROWSER=1.
import assert from 'node:assert/strict';
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import type { BrowserContext, Page } from 'playwright-core';
import { createInstance } from '../src/modules/tenants/repository.js';
import { ADMIN_TOKEN } from './harness.js';
import { passwordChosen } from './support/console.js';
import { accessible, haveBrowser, SHOTS, startDemo, type DemoBrowser } from './support/demo-browser.js';
import { takeWithLink } from './support/take.js';

const present = haveBrowser('console navigation browser test');
// The test runs from a mirror of the repository in which artifacts/ is a link to the real one: docs/ is found through it.
const IMAGES = process.env.UPDATE_SCREENSHOTS === '1' ? path.resolve(realpathSync(SHOTS), '..', '..', 'docs', 'images') : SHOTS;
const WIDTHS = [
  { name: '1280', width: 1280, height: 800 },
  { name: '390', width: 390, height: 844 },
] as const;
/** Pages with forms of checkboxes and radios, beyond the navigation's own. */
const FORMS = ['/console/invitations', '/console/invite/bulk', '/console/webhooks', '/console/users', '/console/settings'];
/** The pages the README and docs/console.md show. */
const PICTURES: Record<string, string> = {
  '/console/': 'overview',
  '/console/candidates': 'candidates',
  '/console/invite/bulk': 'bulk-invite',
  '/console/invitations': 'invitations',
  '/console/keys': 'keys',
  '/console/users': 'users',
  '/console/audit': 'audit',
};

describe('the console frame in Chromium at 1280 and 390 px', { skip: !present && 'no Chromium' }, () => {
  let demo: DemoBrowser;
  let password: string;
  const done: string[] = [];

  before(async () => {
    demo = await startDemo({ mailDir: 'console-nav-mail' });
    await createInstance(demo.db, { name: 'other' });
    // The company's name set, as the demo's own seed has it: the pages say it, never the slug.
    const named = await demo.app.inject({
      method: 'PATCH',
      url: '/admin/v1/instances/demo',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { displayName: 'Demo Company' },
    });
    assert.equal(named.statusCode, 200, named.body);
    const made = await demo.app.inject({
      method: 'POST',
      url: '/admin/v1/users',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { email: 'olivia.owner@example.com', role: 'owner' },
    });
    assert.equal(made.statusCode, 201, made.body);
    password = made.json().password;
    await passwordChosen({ db: demo.db }, 'olivia.owner@example.com');
    // Six candidates: three complete the numerical reasoning test, one starts it, two are only invited.
    const request = (options: InjectOptions) => demo.app.inject(options);
    for (let i = 0; i < 6; i++) {
      const invited = await demo.invite(`person.${i}@example.com`, ['numerical-reasoning'], {
        firstName: ['Amira', 'Ben', 'Chloé', 'Dario', 'Elif', 'Farid'][i],
        lastName: 'Example',
      });
      if (i < 3) await takeWithLink({ request }, invited.link, undefined, [['nr-02', i]], { slug: 'numerical-reasoning' });
      else if (i === 3) await takeWithLink({ request }, invited.link, 'started', [], { slug: 'numerical-reasoning' });
    }
  });

  after(async () => {
    await demo?.close();
  });

  async function signedIn(width: { width: number; height: number }, as = { email: 'olivia.owner@example.com', password: () => password }): Promise<BrowserContext> {
    const context = await demo.browser.newContext({ viewport: { width: width.width, height: width.height }, reducedMotion: 'reduce', acceptDownloads: true });
    const page = await context.newPage();
    await page.goto(`${demo.base}/console/sign-in`);
    await page.getByLabel('E-mail').fill(as.email);
    await page.getByLabel('Password').fill(as.password());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await page.close();
    return context;
  }

  /** The navigation's links as drawn: each one line high, all in one column (or one row). */
  async function navigationBoxes(page: Page) {
    return page.evaluate(() => {
      const links = [...document.querySelectorAll<HTMLAnchorElement>('nav[aria-label="Console"] a')];
      return links.map((a) => {
        const box = a.getBoundingClientRect();
        const lineHeight = parseFloat(getComputedStyle(a).lineHeight);
        const padding = parseFloat(getComputedStyle(a).paddingTop) + parseFloat(getComputedStyle(a).paddingBottom);
        return {
          text: a.textContent ?? '',
          x: box.x,
          y: box.y,
          width: box.width,
          height: box.height,
          lines: Math.round((box.height - padding) / lineHeight),
          clipped: a.scrollWidth > a.clientWidth + 1,
        };
      });
    });
  }

  /** Every visible checkbox and radio whose label does not sit on its line (to its right, overlapping vertically). */
  async function offTheLine(page: Page) {
    return page.evaluate(() => {
      const wrong: string[] = [];
      for (const input of document.querySelectorAll<HTMLInputElement>('input[type=checkbox], input[type=radio]')) {
        const box = input.getBoundingClientRect();
        if (box.width === 0 || box.height === 0) continue;
        const label = input.labels?.[0];
        if (!label) continue;
        // The words of the label: the first text's box (a label that wraps the input starts after it).
        const range = document.createRange();
        const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT, { acceptNode: (n) => (n.textContent?.trim() ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT) });
        const text = walker.nextNode();
        if (!text) continue;
        range.selectNodeContents(text);
        const words = range.getClientRects()[0];
        if (!words) continue;
        const middle = box.y + box.height / 2;
        const onLine = words.top <= middle && words.bottom >= middle && words.left >= box.right - 1;
        if (!onLine)
          wrong.push(
            `${input.name}=${input.value} "${label.textContent?.trim().slice(0, 40)}": box ${Math.round(box.x)},${Math.round(box.y)} words ${Math.round(words.left)},${Math.round(words.top)}`,
          );
      }
      return wrong;
    });
  }

  for (const width of WIDTHS) {
    it(`walks every page of the navigation at ${width.name} px: axe clean, one column, the heading on the first screen, controls on their labels' lines`, async () => {
      const context = await signedIn(width);
      try {
        const first = await context.newPage();
        await first.goto(`${demo.base}/console/`);
        const hrefs = await first.locator('nav[aria-label="Console"] a').evaluateAll((links) => links.map((a) => a.getAttribute('href')!));
        assert.ok(hrefs.length >= 12, `an owner sees every section: ${hrefs.join(', ')}`);
        const mobile = width.width < 600;
        if (mobile) {
          // At 390 px the navigation is behind the menu button, which opens it without script.
          assert.equal(await first.locator('nav[aria-label="Console"] a').first().isVisible(), false, 'the navigation is folded at 390 px');
          await first.getByText('Menu', { exact: true }).click();
          assert.equal(await first.locator('nav[aria-label="Console"] a').first().isVisible(), true, 'the menu button opens the navigation');
          await first.screenshot({ path: path.join(IMAGES, `console-menu-${width.name}.png`) });
        }
        const boxes = await navigationBoxes(first);
        for (const box of boxes) {
          assert.equal(box.lines, 1, `"${box.text}" is one line at ${width.name} px (${box.height} px high)`);
          assert.equal(box.clipped, false, `"${box.text}" is not cut at ${width.name} px`);
          assert.ok(Math.abs(box.x - boxes[0]!.x) < 1, `"${box.text}" is in the one column (x ${box.x}, not ${boxes[0]!.x})`);
        }
        for (let i = 1; i < boxes.length; i++) assert.ok(boxes[i]!.y > boxes[i - 1]!.y, `"${boxes[i]!.text}" is below "${boxes[i - 1]!.text}"`);
        await first.close();

        const pages = [...new Set([...hrefs.map((h) => h.split('?')[0]!), ...FORMS])];
        const problems = await Promise.all(
          pages.map(async (href) => {
            const page = await context.newPage();
            try {
              const response = await page.goto(`${demo.base}${href}`);
              assert.equal(response?.status(), 200, `${href} opens`);
              const heading = page.getByRole('heading', { level: 1 }).first();
              const box = (await heading.boundingBox())!;
              assert.ok(
                box && box.y + box.height <= width.height,
                `${href}: the heading "${await heading.innerText()}" is on the first screen at ${width.name} px (ends at ${box?.y + box?.height})`,
              );
              const wrong = await offTheLine(page);
              assert.deepEqual(wrong, [], `${href} at ${width.name} px: every checkbox and radio on the line of its label`);
              // The frame's navigation is the same on every page: its boxes are checked once above, its wrapping here.
              if (!mobile) {
                const nav = await navigationBoxes(page);
                assert.ok(
                  nav.every((b) => b.lines === 1 && Math.abs(b.x - nav[0]!.x) < 1),
                  `${href}: the navigation is one column of single lines`,
                );
              }
              const wide = await page.evaluate(() =>
                [...document.querySelectorAll('.sidebar, .sidebar *, main > h1, .page-header, .page-header *')]
                  .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 1)
                  .map((el) => `${el.tagName}#${el.id}.${el.className} in ${el.parentElement?.tagName}.${el.parentElement?.className} ${el.getBoundingClientRect().right}`)
                  .slice(0, 5),
              );
              assert.deepEqual(wide, [], `${href}: nothing of the frame or the page's header reaches past the right edge at ${width.name} px`);
              // Nor anything of the page's content, but for what scrolls in a box of its own (wide tables, code).
              const spilled = await page.evaluate(() =>
                [...document.querySelectorAll('main *')]
                  .filter((el) => !el.closest('.table-scroll, pre, [hidden], .visually-hidden, .chart-data, details:not([open]) > :not(summary)'))
                  .filter((el) => el.getBoundingClientRect().width > 0 && el.getBoundingClientRect().right > window.innerWidth + 1)
                  .map((el) => `${el.tagName}.${el.className} "${(el.textContent ?? '').trim().slice(0, 40)}" ${Math.round(el.getBoundingClientRect().right)}`)
                  .slice(0, 5),
              );
              assert.deepEqual(spilled, [], `${href}: nothing of the page runs past the right edge at ${width.name} px`);
              // What widens it, if anything: the deepest element whose hiding makes the page fit.
              const sideways = await page.evaluate(() => {
                const by = document.documentElement.scrollWidth - window.innerWidth;
                if (by <= 0) return { by, what: [] as string[] };
                const what = [...document.querySelectorAll<HTMLElement>('main *')]
                  .filter((el) => {
                    const before = el.style.display;
                    el.style.display = 'none';
                    const fits = document.documentElement.scrollWidth <= window.innerWidth;
                    el.style.display = before;
                    return fits;
                  })
                  .map((el) => `${el.tagName}.${el.className} "${(el.textContent ?? '').trim().slice(0, 60)}"`)
                  .slice(-1);
                return { by, what };
              });
              assert.ok(sideways.by <= 0, `${href}: the page does not scroll sideways at ${width.name} px (by ${sideways.by} px: ${sideways.what.join(', ')})`);
              await accessible(page, `${href} at ${width.name} px`);
              // Every page is pictured in artifacts/ to be looked at; those the docs show also go to docs/images/.
              const picture = PICTURES[href];
              const name = picture ?? `page-${href.replace(/^\/console\/?/, '').replace(/\W+/g, '-') || 'overview'}`;
              await page.screenshot({ path: path.join(picture ? IMAGES : SHOTS, `console-${name}-${width.name}.png`) });
              return undefined;
            } catch (error) {
              return error as Error;
            } finally {
              await page.close();
            }
          }),
        );
        const failed = problems.filter((p): p is Error => p !== undefined);
        if (failed.length > 0) assert.fail(failed.map((e) => e.message).join('\n\n'));
        done.push(...pages.map((p) => `${p}@${width.name}`));
      } finally {
        await context.close();
      }
    });
  }

  it("a candidate's page shows the result above the decision, and downloads the PDF", async () => {
    const context = await signedIn(WIDTHS[0]);
    try {
      const page = await context.newPage();
      const id = (await demo.db.query<{ id: string }>("SELECT id FROM candidates WHERE email = 'person.0@example.com'")).rows[0]!.id;
      await page.goto(`${demo.base}/console/candidates/${id}?instance=demo`);
      const result = (await page
        .locator('.report dt', { hasText: /^Result$/ })
        .first()
        .boundingBox())!;
      const decision = (await page.getByRole('heading', { name: 'Decision and tags' }).boundingBox())!;
      assert.ok(result.y < decision.y, `the result (y ${result.y}) comes before the decision (y ${decision.y})`);
      assert.ok(result.y < 800, 'the result is on the first screen');
      await page.screenshot({ path: path.join(IMAGES, 'console-candidate-1280.png') });
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page
          .getByRole('link', { name: /Download PDF/ })
          .first()
          .click(),
      ]);
      assert.match(download.suggestedFilename(), /^Example-.*\.pdf$/);
      const file = await download.path();
      const bytes = (await import('node:fs')).readFileSync(file);
      assert.equal(bytes.subarray(0, 5).toString('latin1'), '%PDF-', 'a PDF');
      assert.ok(bytes.length > 2000, `a PDF of some length (${bytes.length} bytes)`);
      await accessible(page, "a candidate's page");
      const header = (await page.locator('.page-header').boundingBox())!;
      assert.ok(header.y + header.height < result.y, 'the decision buttons are in the header, above the result');
      // At 390 px the header's buttons open the same form, on the first screen.
      await page.setViewportSize({ width: 390, height: 844 });
      await page.locator('.page-header').getByRole('button', { name: 'Advance', exact: true }).click();
      const form = page.getByRole('dialog', { name: 'Advance: decide' });
      const box = (await form.boundingBox())!;
      assert.ok(box.x >= 0 && box.x + box.width <= 390, `the form fits the phone's width (${box.x}..${box.x + box.width})`);
      await page.screenshot({ path: path.join(IMAGES, 'console-candidate-decide-390.png') });
      await form.getByRole('button', { name: 'Cancel' }).click();
      assert.equal(await form.isVisible(), false, 'Cancel closes it, nothing decided');
      await page.setViewportSize({ width: 1280, height: 800 });
      // A bad id, an assessment the candidate was not invited to, another instance: each a 404 page, no PDF.
      for (const url of [
        `/console/candidates/not-an-id/pdf/numerical-reasoning?instance=demo`,
        `/console/candidates/${id}/pdf/typing-basic?instance=demo`,
        `/console/candidates/${id}/pdf/numerical-reasoning?instance=other`,
        `/console/candidates/${id}/link/nope?instance=demo`,
      ]) {
        const refused = await page.request.get(`${demo.base}${url}`);
        assert.equal(refused.status(), 404, url);
        assert.match(refused.headers()['content-type']!, /^text\/html/, url);
      }
      // "Copy report link": the signed link of the API's reportUrl, which opens the report without an account.
      await page
        .getByRole('link', { name: /Copy report link/ })
        .first()
        .click();
      const link = await page.getByLabel('The link').inputValue();
      assert.match(link, new RegExp(`^${demo.base}/reports/${id}/[^?]+\\?expires=\\d+&signature=`));
      assert.equal((await fetch(link)).status, 200, 'the link opens the report');
      await accessible(page, 'the report link page');
    } finally {
      await context.close();
    }
  });

  it("the overview's pipeline counts equal the candidate list's, filtered as each count links", async () => {
    // A decision on one who completed, so that the decided stage has a count too.
    const context = await signedIn(WIDTHS[0]);
    try {
      const page = await context.newPage();
      const id = (await demo.db.query<{ id: string }>("SELECT id FROM candidates WHERE email = 'person.1@example.com'")).rows[0]!.id;
      await page.goto(`${demo.base}/console/candidates/${id}?instance=demo`);
      // Decided from the header: Hold opens its form (a popover) for the note; the header shows it after.
      await page.locator('.page-header').getByRole('button', { name: 'Hold', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Hold: decide' });
      assert.equal(await dialog.isVisible(), true, 'the note form opens');
      await accessible(page, "a candidate's page with the Hold form open");
      await dialog.getByLabel(/Note for your team/).fill('Second interview after the holidays');
      await page.screenshot({ path: path.join(IMAGES, 'console-candidate-decide-1280.png') });
      await dialog.getByRole('button', { name: 'Hold', exact: true }).click();
      await page.waitForURL(/marked=1/);
      assert.equal(await page.locator('.candidate-marks .badge').innerText(), 'Hold', 'the decision is in the header');
      assert.equal(await page.locator('.page-header').getByRole('button', { name: 'Hold', exact: true }).getAttribute('aria-pressed'), 'true');
      assert.match(await page.locator('.marks').innerText(), /Second interview after the holidays/);
      await page.goto(`${demo.base}/console/?instance=demo`);
      const links = await page.locator('table.pipeline a').evaluateAll((as) => as.map((a) => ({ href: a.getAttribute('href')!, count: Number(a.textContent) })));
      const row = await page.locator('table.pipeline tbody tr').first().innerText();
      assert.match(row, /^Numerical Reasoning\s+6\s+4\s+3\s+3\s+0\s+1\s+0$/, 'invited 6, started 4, completed 3, scored 3, one on hold');
      assert.ok(links.length >= 5, `a link for each count above zero: ${links.length}`);
      const listed = await Promise.all(
        links.map(async ({ href }) => {
          const list = await context.newPage();
          await list.goto(`${demo.base}${href}`);
          const rows = await list.locator('table.data tbody tr').count();
          await list.close();
          return rows;
        }),
      );
      assert.deepEqual(
        listed,
        links.map((l) => l.count),
        `each count is its list's length: ${links.map((l) => l.href).join(', ')}`,
      );
    } finally {
      await context.close();
    }
  });

  it("the overview draws completions per day and each assessment's scores against its pass marks, with the numbers as tables", async () => {
    const context = await signedIn(WIDTHS[0]);
    try {
      const page = await context.newPage();
      await page.goto(`${demo.base}/console/?instance=demo`);
      const completions = page.locator('#completions-title + figure');
      const daily = await completions.locator('table.chart-data tbody td').allInnerTexts();
      assert.equal(daily.length, 30, 'a row a day');
      const { rows } = await demo.db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM invitations i JOIN instances s ON s.id = i.instance_id WHERE s.name = 'demo' AND i.assessment_status = 'COMPLETED'`,
      );
      assert.equal(
        daily.reduce((n, d) => n + Number(d), 0),
        rows[0]!.n,
        'every completion of the demo (all within 30 days) is counted once',
      );
      const numerical = page.locator('figure', { hasText: 'Numerical Reasoning: total scores of 3 completed attempts' });
      await numerical.waitFor();
      const bins = await numerical.locator('table.chart-data tbody td').allInnerTexts();
      assert.equal(
        bins.reduce((n, d) => n + Number(d), 0),
        3,
        'the three scored attempts, one per bin they fall in',
      );
      assert.match(await numerical.locator('table.chart-data caption').innerText(), /pass \d+ %/);
      assert.equal((await numerical.locator('svg line.chart-line').count()) >= 1, true, 'the pass mark is drawn, dashed and named');
      await page.locator('#scores-title').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(IMAGES, 'console-overview-charts-1280.png'), fullPage: false });
    } finally {
      await context.close();
    }
  });

  it("the overview's charts keep their words readable on a phone (at least 10 px at 390 px)", async () => {
    const context = await signedIn(WIDTHS[1]);
    try {
      const page = await context.newPage();
      await page.goto(`${demo.base}/console/?instance=demo`);
      const ticks = page.locator('#completions-title + figure svg text.chart-tick');
      await ticks.first().waitFor();
      const heights = await ticks.evaluateAll((all) => all.map((t) => (t as SVGTextElement).getBoundingClientRect().height));
      assert.ok(heights.length > 0, 'the axis is labelled');
      const smallest = Math.min(...heights);
      assert.ok(smallest >= 10, `the axis labels are ${smallest.toFixed(1)} px high at 390 px`);
      await page.locator('#scores-title').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(IMAGES, 'console-overview-charts-390.png'), fullPage: false });
    } finally {
      await context.close();
    }
  });

  it("the candidates list fits ten of twenty above the fold, sorts by a header, folds its filters, shows the bulk actions once one is ticked, and keeps a row's box on the line of its name", async () => {
    // Twenty candidates in all (the six above and fourteen only invited).
    for (let i = 6; i < 20; i++) await demo.invite(`more.${i}@example.com`, ['data-entry'], { firstName: `Person ${i}`, lastName: 'Example' });
    const wide = await signedIn(WIDTHS[0]);
    try {
      const page = await wide.newPage();
      await page.goto(`${demo.base}/console/candidates?instance=demo`);
      const rows = await page.locator('table.candidates tbody tr').evaluateAll((trs) => trs.map((tr) => tr.getBoundingClientRect().bottom));
      assert.equal(rows.length, 20);
      const above = rows.filter((bottom) => bottom <= 800).length;
      assert.ok(above >= 10, `${above} rows above the fold at 1280 × 800`);
      await page.screenshot({ path: path.join(IMAGES, 'console-candidates-twenty-1280.png') });
      assert.equal(await page.getByRole('searchbox', { name: 'Name or e-mail starts with' }).isVisible(), true, 'the search is on its line');
      assert.equal(await page.locator('#f-status').isVisible(), false, 'the other filters are folded');
      assert.equal(await page.locator('.bulk-bar').isVisible(), false, 'no bulk actions with nothing ticked');
      // A filter on is a chip whose link takes it off again.
      await page.locator('.filters-fold > summary').click();
      await page.locator('#f-status').selectOption('COMPLETED');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.getByRole('link', { name: 'Remove the filter Status: Completed' }).waitFor();
      assert.equal(await page.locator('table.candidates tbody tr').count(), 3);
      await page.getByRole('link', { name: 'Remove the filter Status: Completed' }).click();
      await page.waitForURL((url) => !url.search.includes('status='));
      assert.equal(await page.locator('table.candidates tbody tr').count(), 20);
      await page.getByRole('link', { name: /^Name/ }).click();
      await page.waitForURL(/sort=name/);
      assert.match(await page.locator('th[aria-sort="ascending"]').innerText(), /^Name and e-mail ↑/);
      const names = await page.locator('table.candidates tbody th').allInnerTexts();
      assert.deepEqual(
        names,
        [...names].sort((a, b) => a.localeCompare(b)),
        'in name order',
      );
      assert.match(await page.locator('.pager-count').innerText(), /^Candidates 1–\d+ of \d+$/);
      // Two chosen, decided at once through the Decide panel (a popover: no script of ours).
      const boxes = page.locator('table.candidates tbody input[type=checkbox]');
      await boxes.nth(0).check();
      assert.equal(await page.locator('.bulk-bar').isVisible(), true, 'the bulk actions once one is ticked');
      await boxes.nth(1).check();
      await page.getByRole('button', { name: 'Decide…' }).click();
      const panel = page.locator('#bulk-decide');
      assert.equal(await panel.isVisible(), true, 'the panel opens');
      await accessible(page, 'the Decide panel open at 1280 px');
      await page.screenshot({ path: path.join(IMAGES, 'console-candidates-decide-1280.png') });
      await panel.getByLabel('Decision').selectOption('hold');
      await panel.getByLabel(/Note/).fill('Phone screen next week');
      await panel.getByRole('button', { name: 'Decide for the chosen' }).click();
      await page.waitForURL(/done=decided/);
      assert.equal(await page.getByRole('status').first().innerText(), 'Hold: decided for 2 candidates.');
      assert.match(await page.locator('th[aria-sort="ascending"]').innerText(), /^Name/, 'back on the list as it was sorted');
    } finally {
      await wide.close();
    }
    const phone = await signedIn(WIDTHS[1]);
    try {
      const page = await phone.newPage();
      await page.goto(`${demo.base}/console/candidates?instance=demo`);
      assert.equal(await page.locator('#f-status').isVisible(), false, 'the filters are folded at 390 px');
      const firstRow = page.locator('table.candidates tbody tr').first();
      const box = (await firstRow.locator('input[type=checkbox]').boundingBox())!;
      const name = (await firstRow.locator('th').boundingBox())!;
      assert.ok(box.y < name.y + name.height && name.y < box.y + box.height, `the box (y ${box.y}) is on the name's line (y ${name.y}..${name.y + name.height})`);
      assert.ok(box.x < name.x, 'before the name');
      assert.ok(name.y < 844, 'the first candidate is on the first screen');
      await page.screenshot({ path: path.join(IMAGES, 'console-candidates-list-390.png') });
      await page.locator('.filters-fold > summary').click();
      assert.equal(await page.locator('#f-status').isVisible(), true, 'the summary opens them');
      await accessible(page, 'the candidates list with its filters open at 390 px');
    } finally {
      await phone.close();
    }
  });

  it("the invitation's assessment picker is a list with a search box that narrows it", async () => {
    const context = await signedIn(WIDTHS[1]);
    try {
      const page = await context.newPage();
      await page.goto(`${demo.base}/console/invitations?instance=demo`);
      const options = page.locator('#inv-assessments .option');
      assert.ok((await options.count()) > 8, 'the whole library');
      await page.getByLabel('Attention to Detail').check();
      await page.getByLabel('Find an assessment').fill('numer');
      const visible = await options.evaluateAll((all) => all.filter((o) => (o as HTMLElement).offsetParent !== null).map((o) => o.textContent?.trim()));
      assert.deepEqual(visible, ['Attention to Detail', 'Numerical Reasoning'], 'the match, and the one already ticked');
      assert.deepEqual(await offTheLine(page), [], 'each still on the line of its label');
    } finally {
      await context.close();
    }
  });

  it('the compare page draws the 0-100 track behind its bars', async () => {
    const context = await signedIn(WIDTHS[0]);
    try {
      const page = await context.newPage();
      const ids = (await demo.db.query<{ id: string }>("SELECT id FROM candidates WHERE email LIKE 'person.%' ORDER BY email LIMIT 3")).rows.map((r) => r.id);
      await page.goto(`${demo.base}/console/compare?instance=demo&${ids.map((id) => `ids=${id}`).join('&')}`);
      const tracks = page.locator('svg .chart-track');
      assert.ok((await tracks.count()) >= 3, 'a track for each bar');
      const scale = await page.locator('svg .chart-tick').evaluateAll((ticks) => ticks.map((t) => t.textContent));
      assert.deepEqual(scale.slice(0, 3), ['0', '50', '100'], 'the scale is labelled 0, 50 and 100');
      // The track runs the plot's whole width: a bar of 100 would fill it.
      const [track, bar] = await Promise.all([tracks.first().boundingBox(), page.locator('svg .chart-bar').first().boundingBox()]);
      assert.ok(track && bar && track.width >= bar.width && Math.abs(track.x - bar.x) < 1, 'bars start where the track starts and never pass it');
      await page.screenshot({ path: path.join(IMAGES, 'console-compare-1280.png') });
      await accessible(page, 'the compare page');
    } finally {
      await context.close();
    }
  });

  it('a candidate with two assessments: one summary, each assessment a card, the answers folded; two screens at 1280 px, and no identifier on the first', async () => {
    const request = (options: InjectOptions) => demo.app.inject(options);
    const invited = await demo.invite('gita@example.com', ['numerical-reasoning', 'data-entry'], { firstName: 'Gita', lastName: 'Example' });
    await takeWithLink({ request }, invited.link, undefined, [['nr-02', 1]], { slug: 'numerical-reasoning' });
    await takeWithLink({ request }, invited.link, undefined, [], { slug: 'data-entry' });
    // Another owner (the sign-in limit of the first is spent by the tests above), one session for both widths.
    const made = await demo.app.inject({
      method: 'POST',
      url: '/admin/v1/users',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
      payload: { email: 'oscar.owner@example.com', role: 'owner' },
    });
    assert.equal(made.statusCode, 201, made.body);
    await passwordChosen({ db: demo.db }, 'oscar.owner@example.com');
    const context = await signedIn(WIDTHS[0], { email: 'oscar.owner@example.com', password: () => made.json().password });
    try {
      for (const width of WIDTHS) {
        const page = await context.newPage();
        await page.setViewportSize({ width: width.width, height: width.height });
        const listed = await page.goto(`${demo.base}/console/candidates?instance=demo`);
        assert.equal(listed?.status(), 200);
        await page.getByRole('searchbox', { name: 'Name or e-mail starts with' }).fill('Gita');
        await page.getByRole('button', { name: 'Search', exact: true }).click();
        await page.waitForURL(/[?&]q=Gita/);
        await page.getByRole('link', { name: 'Gita Example' }).click();
        await page.getByRole('heading', { level: 1, name: 'Gita Example' }).waitFor();
        const summary = page.getByRole('table', { name: 'Results of each assessment' });
        assert.deepEqual((await summary.locator('tbody th').allInnerTexts()).sort(), ['Data Entry & Accuracy', 'Numerical Reasoning'], 'one summary row per assessment');
        assert.equal(await page.locator('section.report').count(), 2, 'a card per assessment');
        for (const fold of await page.locator('section.report details.fold').all()) assert.equal(await fold.getAttribute('open'), null, 'answers and the rest folded');
        await page.screenshot({ path: path.join(SHOTS, `console-candidate-two-full-${width.name}.png`), fullPage: true });
        const height = await page.evaluate(() => document.documentElement.scrollHeight);
        if (width.width === 1280) assert.ok(height <= 2 * width.height, `the page is ${height} px high at 1280 × 800: at most two screens`);
        const first = await firstScreenWords(page, width.height);
        assert.doesNotMatch(first, /[0-9a-f]{8}-[0-9a-f]{4}-/i, 'no UUID on the first screen');
        assert.doesNotMatch(first, /\bdemo\b/, 'no instance slug on the first screen');
        assert.doesNotMatch(first, /\bnr-\d+/, 'no question id on the first screen');
        assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= width.width, 'nothing scrolls sideways');
        await accessible(page, `the two-assessment candidate page at ${width.name} px`);
        await page.screenshot({ path: path.join(IMAGES, `console-candidate-two-${width.name}.png`) });
        // The facts under "More about this attempt" open on a click, as each card's answers do.
        await page.locator('section.report').first().getByText('More about this attempt').click();
        assert.equal(await page.locator('section.report').first().getByText('Completion', { exact: true }).isVisible(), true);
        // The overview and the review queue read in words too.
        for (const where of ['/console/?instance=demo', '/console/reviews?instance=demo']) {
          await page.goto(`${demo.base}${where}`);
          const words = await firstScreenWords(page, width.height);
          assert.doesNotMatch(
            words,
            /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-|\bdemo\b|\bnr-\d+/,
            `${where}: no UUID, slug or question id on the first screen at ${width.name} px: ${/.{0,80}(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-|\bdemo\b|\bnr-\d+).{0,80}/s.exec(words.replace(/\s+/g, ' '))?.[0]}`,
          );
        }
        await page.close();
      }
    } finally {
      await context.close();
    }
  });
});

/** Every word drawn on the page's first screen (the sidebar's and the page's), as one text. */
function firstScreenWords(page: Page, height: number): Promise<string> {
  return page.evaluate((h) => {
    const words: string[] = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const range = document.createRange();
      range.selectNodeContents(n);
      const box = range.getBoundingClientRect();
      // Drawn: in a box of more than a pixel (not the visually hidden), not inside what is folded.
      if (box.width > 1 && box.height > 1 && box.top < h && box.bottom > 0 && n.parentElement?.checkVisibility({ visibilityProperty: true })) words.push(n.textContent ?? '');
    }
    return words.join(' ');
  }, height);
}
