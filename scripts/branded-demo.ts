// The seeded demo instance with its branding and the demo logo, served on a free port over an
// in-memory PGlite: what a candidate of "Demo Company" sees. Used by scripts/screenshots.ts and
// by the branded portal's browser test, so that both show the same thing.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { openDatabase } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { createFileMailer } from '../src/modules/mail/mailer.js';
import { checkLogo } from '../src/modules/tenants/branding.js';
import { setLogo } from '../src/modules/tenants/repository.js';
import { seedDemo } from '../src/seed.js';

export const DEMO_LOGO = path.resolve(import.meta.dirname, '..', 'docs', 'images', 'demo-logo.png');
const TOKEN = 'branded-demo-admin-token-0123456789';

export interface BrandedDemo {
  base: string;
  /** Invites a candidate into the demo instance; the link opens the portal. */
  invite(email: string, firstName: string, assessments: string[]): Promise<{ link: string; candidateId: string }>;
  close(): Promise<void>;
}

export async function startBrandedDemo(options: { logo?: boolean } = {}): Promise<BrandedDemo> {
  const db = await openDatabase({});
  await migrate(db);
  await seedDemo(db, new Date());
  if (options.logo !== false) {
    const checked = checkLogo('image/png', readFileSync(DEMO_LOGO));
    if ('detail' in checked) throw new Error(`${DEMO_LOGO}: ${checked.detail}`);
    await setLogo(db, 'demo', checked.logo, new Date());
  }
  // The app must know its own address for links, so find a free port first.
  const probe = createServer();
  const port = await new Promise<number>((resolve) => probe.listen(0, '127.0.0.1', () => resolve((probe.address() as { port: number }).port)));
  await new Promise((resolve) => probe.close(resolve));
  const base = `http://127.0.0.1:${port}`;
  const app = await buildApp({
    config: { publicUrl: base, adminToken: TOKEN, keyCacheMs: 2000, sweepEveryMs: 500, metrics: false },
    db,
    mailer: createFileMailer({ from: 'x@localhost', timeoutMs: 2000, mailDir: path.join(tmpdir(), 'ac-branded-demo-mail') }),
  });
  await app.listen({ port, host: '127.0.0.1' });
  const key = (await app.inject({ method: 'POST', url: '/admin/v1/keys', headers: { authorization: `Bearer ${TOKEN}` }, payload: { instances: ['demo'] } })).json().key as string;
  return {
    base,
    async invite(email, firstName, assessments) {
      const response = await fetch(`${base}/v1/invite`, {
        method: 'POST',
        headers: { 'x-api-key': key, instance: 'demo', 'content-type': 'application/json' },
        body: JSON.stringify({ email, firstName, lastName: 'Example', assessments }),
      });
      if (response.status !== 200) throw new Error(`invite failed: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { link: string; candidateId: string }[])[0]!;
    },
    async close() {
      await app.close();
      await db.close();
    },
  };
}
