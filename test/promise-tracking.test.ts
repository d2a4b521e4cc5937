// No request turns on Node's tracking of promises (see test/support/promise-tracking.ts).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { it } from 'node:test';
import { runnable } from './support/runnable.js';

it('a node that served the portal, the API and the console does not track promises', () => {
  const script = runnable(path.join(import.meta.dirname, 'support', 'promise-tracking.ts'));
  const out = execFileSync(process.execPath, [...script.loader, script.file], { env: { ...process.env, TEST_DATABASE_URL: '', REQUIRE_POSTGRES: '' }, encoding: 'utf8' });
  const { before, after, control } = JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, boolean>;
  assert.equal(before, false, 'promises were tracked before the app was built');
  assert.equal(after, false, 'serving requests turned on promise tracking (an AsyncLocalStorage or async hook)');
  assert.equal(control, true, 'the check did not see an AsyncLocalStorage entered on purpose');
});
