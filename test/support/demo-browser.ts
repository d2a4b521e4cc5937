// The browser suites' common ground: the demo catalogue served by a real app on a free port (on
// PGlite), a key for it, Debian's Chromium through playwright-core, axe, and moving by Tab.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import axe from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Database } from '../../src/db/database.js';
import { openMigratedPglite } from './templates.js';
import { createFileMailer } from '../../src/modules/mail/mailer.js';
import { importCatalogue } from '../../src/seed.js';
import { createInstance, type InstanceSettings } from '../../src/modules/tenants/repository.js';
import { ADMIN_TOKEN } from '../harness.js';
import { passwordChosen } from './console.js';
import { PageProblems } from './keyboard.js';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SHOTS = path.resolve(import.meta.dirname, '..', '..', 'artifacts', 'screenshots');
/** How many of the server's last warning and error lines serverLog() keeps. */
const LOG_LINES = 20;

/** Whether Chromium is here; throws under REQUIRE_BROWSER=1 when it is not, else says the suite skips. */
export function haveBrowser(suite: string): boolean {
  const found = existsSync(CHROMIUM);
  if (!found && process.env.REQUIRE_BROWSER === '1') throw new Error(`REQUIRE_BROWSER=1 but there is no Chromium at ${CHROMIUM}: the browser tests would be skipped`);
  if (!found) console.log(`# ${suite} SKIPPED: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`);
  return found;
}

export interface DemoBrowser {
  browser: Browser;
  app: FastifyInstance;
  db: Database;
  base: string;
  key: string;
  /** The server's last warnings and errors (its log at level warn, kept in memory), for a failure's message. */
  serverLog(): string;
  /** Invites Robin Tester, or the names `extra` gives (by POST /v1/invite with the demo's key), and returns the link and id. */
  invite(email: string, assessments: string[], extra?: Record<string, unknown>): Promise<{ link: string; candidateId: string }>;
  /** Publishes an assessment (YAML) in demo through the admin API, and checks it was (201). */
  publish(yaml: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The demo catalogue in instance "demo" (with `settings`), served on a free port, with an API key
 * and a browser; its e-mail goes to `mailDir` (a folder beside the screenshots).
 */
export async function startDemo(
  options: {
    settings?: InstanceSettings;
    mailDir?: string;
    /** The app's clock, for suites that move time instead of waiting. */
    now?: () => Date;
    /** More Chromium switches (a fake camera, say). */
    browserArgs?: string[];
  } = {},
): Promise<DemoBrowser> {
  mkdirSync(SHOTS, { recursive: true });
  const db = await openMigratedPglite();
  await importCatalogue(db, (await createInstance(db, { name: 'demo', ...options.settings }))!, new Date());
  // The app must know its own address for links, so listen first on a free port.
  const probe = (await import('node:net')).createServer();
  const port = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)));
  await new Promise((resolve) => probe.close(resolve));
  const base = `http://127.0.0.1:${port}`;
  // Warnings and errors stay in memory: a request that fails says why in its test's message.
  const log: string[] = [];
  const app = await buildApp({
    config: { publicUrl: base, adminToken: ADMIN_TOKEN, keyCacheMs: 2000, sweepEveryMs: 500, now: options.now },
    db,
    mailer: createFileMailer({ from: 'x@localhost', timeoutMs: 2000, mailDir: path.join(SHOTS, '..', options.mailDir ?? 'mail') }),
    logger: {
      level: 'warn',
      stream: {
        write(line: string) {
          log.push(line.trimEnd());
          if (log.length > LOG_LINES) log.shift();
        },
      },
    },
  });
  await app.listen({ port, host: '127.0.0.1' });
  const key = (await app.inject({ method: 'POST', url: '/admin/v1/keys', headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, payload: { instances: ['demo'] } })).json().key;
  const serverLog = () => (log.length === 0 ? '(none)' : log.join('\n'));
  const browser = await launchBrowser(options.browserArgs);
  return {
    browser,
    app,
    db,
    base,
    key,
    serverLog,
    async invite(email, assessments, extra = {}) {
      const response = await fetch(`${base}/v1/invite`, {
        method: 'POST',
        headers: { 'x-api-key': key, instance: 'demo', 'content-type': 'application/json' },
        body: JSON.stringify({ email, firstName: 'Robin', lastName: 'Tester', assessments, ...extra }),
      });
      if (response.status !== 200) {
        // The status, the body, the embedded store's own state and the server's log say why (once in
        // CI every invite from the fifth on answered a problem within milliseconds).
        const answer = await response.text();
        const store = await db.query('SELECT 1').then(
          () => 'answers',
          (error: unknown) => String(error),
        );
        assert.fail(`invite of ${email}: ${response.status} ${answer}; the embedded store ${store}; the server's last warnings and errors:\n${serverLog()}`);
      }
      return ((await response.json()) as { link: string; candidateId: string }[])[0]!;
    },
    async publish(yaml) {
      const published = await app.inject({
        method: 'POST',
        url: '/admin/v1/instances/demo/assessments',
        headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/yaml' },
        payload: yaml,
      });
      assert.equal(published.statusCode, 201, published.body);
    },
    async close() {
      try {
        await browser.close();
      } finally {
        await app.close();
        await db.close();
      }
    },
  };
}

/**
 * Debian's Chromium, every page of which (in any of its contexts) is watched for what no person
 * should meet: a Content-Security-Policy refusal or a script error. Closing the browser fails
 * with each one seen, so a suite that visits a page the policy breaks fails, whatever it checked.
 */
export async function launchBrowser(args: string[] = []): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...args],
  });
  const problems = new PageProblems();
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (...options) => {
    const context = await newContext(...options);
    context.on('page', (page) => problems.watch(page));
    return context;
  };
  browser.newPage = async (...options) => {
    const context = await browser.newContext(...options);
    const page = await context.newPage();
    page.on('close', () => void context.close().catch(() => undefined));
    return page;
  };
  const close = browser.close.bind(browser);
  browser.close = async (...options) => {
    await close(...options);
    problems.assertNone('the pages this browser showed');
  };
  return browser;
}

/** axe (WCAG 2.0 to 2.2 A and AA, and best practice) finds nothing on the page. */
export async function accessible(page: Page, screen: string): Promise<void> {
  const result = (await page.evaluate(`${axe.source}; axe.run(document, { runOnly: ['wcag2a', 'wcag2aa', 'wcag21aa', 'wcag22aa', 'best-practice'] })`)) as {
    violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
  };
  assert.deepEqual(
    result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    [],
    `axe on ${screen}`,
  );
}

/** Presses Tab until the focused element matches, as a keyboard user would move through the page. */
export async function tabTo(page: Page, matches: string, limit = 60): Promise<void> {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (await page.evaluate((selector) => document.activeElement?.matches(selector) ?? false, matches)) return;
  }
  assert.fail(`Tab never reached ${matches}`);
}

/** A console user of the demo instance made through the admin API, password already chosen; returns the password. */
export async function demoUser(demo: DemoBrowser, email: string, role = 'manager'): Promise<string> {
  const made = await demo.app.inject({
    method: 'POST',
    url: '/admin/v1/users',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
    payload: { email, role, instances: ['demo'] },
  });
  assert.equal(made.statusCode, 201, made.body);
  await passwordChosen({ db: demo.db }, email);
  return made.json().password as string;
}

/** Signs in to the console as a person would, and waits for the overview of demo. */
export async function consoleSignIn(page: Page, base: string, email: string, password: string): Promise<void> {
  await page.goto(`${base}/console/`);
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Overview of demo' }).waitFor();
}

/**
 * A candidate's page (1000 × 900) in a new context, signed in with the link and on the first
 * question of the assessment it opened; `blocked` collects the console's errors (what the CSP refused).
 */
export async function startAttemptPage(demo: DemoBrowser, link: string) {
  const context = await demo.browser.newContext({ viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  const blocked: string[] = [];
  page.on('console', (message) => message.type() === 'error' && blocked.push(message.text()));
  await page.goto(link);
  await page.getByRole('link', { name: /Open/ }).click();
  await page.getByRole('button', { name: 'Start the assessment' }).click();
  await page.locator('#answer-form').waitFor();
  return { context, page, blocked };
}
