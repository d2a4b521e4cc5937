// The browser suites' hands: text typed key by key at a person's pace, and a program typed into
// the code editor as a person types one: a line at a time, looking after each Enter at where the
// cursor landed and how far the editor indented it, taking indentation away with Backspace and
// adding it with Tab (or Space, for a step smaller than the editor's), never setting the editor's
// value, never pasting, never calling the page's code. What the editor then holds is read from
// what it shows.
import assert from 'node:assert/strict';
import type { ConsoleMessage, Locator, Page } from 'playwright-core';

/** Milliseconds between two keys, on average: a quick typist's 20 keys a second. */
export const KEY_DELAY_MS = 45;

/**
 * Types `text` key by key into whatever has the focus, at a person's pace and with a person's
 * uneven rhythm (the gaps vary between 25 and 65 ms; an even rhythm is machine typing, and the
 * portal's signals rightly say so).
 */
export async function typeAsPerson(page: Page, text: string): Promise<void> {
  for (const [i, key] of [...text].entries()) {
    await page.keyboard.type(key);
    await page.waitForTimeout(KEY_DELAY_MS - 20 + ((i * 37) % 41));
  }
}

/** Presses `key` (a Playwright key name, "Tab", "Shift+Tab", "ArrowDown" …) `times` times, at a person's pace. */
export async function press(page: Page, key: string, times = 1): Promise<void> {
  for (let i = 0; i < times; i++) {
    await page.keyboard.press(key);
    await page.waitForTimeout(KEY_DELAY_MS);
  }
}

const leading = (text: string) => /^[ \t\u00a0]*/.exec(text)![0];

/** The lines the code editor shows, in order (what a person reads on the screen). */
export async function editorLines(editor: Locator): Promise<string[]> {
  return editor.locator('.cm-content .cm-line').allTextContents();
}

/** The line the cursor is on, as the editor shows it: its number in the gutter and its text. */
async function cursorLine(editor: Locator): Promise<{ number: number; text: string }> {
  const number = Number(await editor.locator('.cm-lineNumbers .cm-activeLineGutter').textContent());
  const text = (await editor.locator('.cm-content .cm-activeLine').textContent()) ?? '';
  return { number, text };
}

/**
 * Types `program` into the focused, empty code editor `editor` (the CodeMirror element) line by
 * line (typeLines).
 */
export async function typeProgram(page: Page, editor: Locator, program: string): Promise<void> {
  await typeLines(page, editor, program.split('\n'), 1);
}

/**
 * Types `lines` into `editor` from the cursor's line, numbered `first`, on: for each line, as a
 * person sees it, checks that the cursor is on that line and that it is empty, brings the
 * indentation the editor offered to the line's own, types the rest, and presses Enter before the
 * next. Fails when the editor does something a person would have to undo (a doubled bracket, a
 * lost line break), as a test of the editor must.
 */
export async function typeLines(page: Page, editor: Locator, lines: string[], first: number): Promise<void> {
  for (const [i, line] of lines.entries()) {
    const want = leading(line).length;
    let here = await cursorLine(editor);
    assert.equal(here.number, first + i, `after ${i} line(s) typed the cursor is on line ${here.number}, not ${first + i}`);
    assert.equal(here.text.trim(), '', `line ${first + i} holds ${JSON.stringify(here.text)} before anything was typed on it`);
    for (let guard = 0; leading(here.text).length > want && guard < 20; guard++) {
      await press(page, 'Backspace');
      here = await cursorLine(editor);
    }
    for (let guard = 0; leading(here.text).length < want && guard < 20; guard++) {
      const before = leading(here.text).length;
      await press(page, 'Tab');
      here = await cursorLine(editor);
      // One Tab went further than the line's indentation: take it back and step by spaces.
      if (leading(here.text).length > want) {
        await press(page, 'Backspace');
        here = await cursorLine(editor);
        while (leading(here.text).length < want) {
          await press(page, 'Space');
          here = await cursorLine(editor);
        }
      }
      if (leading(here.text).length === before) break;
    }
    assert.equal(leading(here.text), ' '.repeat(want), `line ${first + i} is indented by ${JSON.stringify(leading(here.text))}, the text by ${want} spaces`);
    await typeAsPerson(page, line.trimStart());
    if (i < lines.length - 1) await press(page, 'Enter');
  }
}

/**
 * What a page logs that no person should meet: Content-Security-Policy refusals and script
 * errors, collected from the moment a page is opened (every page of `context` once watched).
 */
export class PageProblems {
  readonly problems: string[] = [];

  watch(page: Page): Page {
    page.on('pageerror', (error) => this.problems.push(`${page.url()}: script error: ${error.message}`));
    page.on('console', (message: ConsoleMessage) => {
      const text = message.text();
      if (/Content Security Policy|Content-Security-Policy/i.test(text) || (message.type() === 'error' && /SyntaxError|TypeError|ReferenceError|Uncaught/.test(text))) {
        this.problems.push(`${page.url()}: ${text}`);
      }
    });
    return page;
  }

  /** Fails with every problem seen so far. */
  assertNone(what: string): void {
    assert.deepEqual(this.problems, [], `${what}: the browser reported ${this.problems.length} problem(s)`);
  }
}
