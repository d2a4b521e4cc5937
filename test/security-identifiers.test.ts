// One account, one spelling: a console user's e-mail is normalised (NFKC and a locale-independent
// case fold) wherever it keys anything, so `İ`, full-width letters or a changed case neither
// dodge the per-account sign-in lockout nor make a second account.
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { normaliseIdentifier } from '../src/modules/users/identifier.js';
import { describeEachStore } from './harness.js';
import { consoleUser, signIn, signInForm } from './support/console.js';

it('normalises e-mail addresses to one form', () => {
  assert.equal(normaliseIdentifier('ADMİN@Example.COM'), 'admin@example.com');
  assert.equal(normaliseIdentifier('ａｄｍｉｎ@ｅｘａｍｐｌｅ.com'), 'admin@example.com');
  assert.equal(normaliseIdentifier('\u212Aelvin@example.com'), 'kelvin@example.com', 'the Kelvin sign');
  assert.equal(normaliseIdentifier('ΟΔΥΣΣΕΥΣ@example.com'), normaliseIdentifier('οδυσσευσ@example.com'), 'final sigma');
  assert.equal(normaliseIdentifier(' admin@example.com '), 'admin@example.com');
});

describeEachStore('console accounts keyed by the normalised e-mail', (ctx) => {
  it('counts every spelling of an address against the same per-account lockout', async () => {
    const local = `lockme${process.pid}`;
    const email = `${local}@example.com`;
    const { password } = await consoleUser(ctx(), email, 'reviewer', [await ctx().instance('idn')]);
    const spellings = [
      email,
      `${local.replace('i', 'İ')}@example.com`,
      `${local.toUpperCase()}@EXAMPLE.COM`,
      `${[...local].map((c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)).join('')}@example.com`,
    ];
    const form = await signInForm(ctx());
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await signIn(ctx(), spellings[i % spellings.length]!, `wrong password ${i}`, {}, form)).statusCode);
    assert.deepEqual(statuses, Array(10).fill(401));
    for (const spelling of spellings) assert.equal((await signIn(ctx(), spelling, password, {}, form)).statusCode, 429, spelling);
  });

  it('signs in with any spelling of the address, audits one actor, and refuses a second account spelled otherwise', async () => {
    const email = `spelt${process.pid}@example.com`;
    const { password } = await consoleUser(ctx(), email, 'owner');
    const signedIn = await signIn(ctx(), `SPELT${process.pid}@ＥＸＡＭＰＬＥ.com`, password);
    assert.equal(signedIn.statusCode, 303, signedIn.body);
    const { rows } = await ctx().db.query<{ actor: string }>(
      `SELECT actor FROM audit_log WHERE action = 'user.sign-in' AND target = (SELECT id::text FROM users WHERE email = $1)`,
      [email],
    );
    assert.deepEqual(
      rows.map((r) => r.actor),
      [`user:${email}`],
    );
    const again = await ctx().request({ method: 'POST', url: '/admin/v1/users', payload: { email: `Spelt${process.pid}@Example.com`, role: 'owner' } });
    assert.equal(again.statusCode, 409);
    const upper = await consoleUser(ctx(), `Mixed.Case${process.pid}@Example.com`, 'owner');
    assert.ok(upper.password);
    const { rows: stored } = await ctx().db.query<{ email: string }>(`SELECT email FROM users WHERE email = $1`, [`mixed.case${process.pid}@example.com`]);
    assert.equal(stored.length, 1, 'stored in its normal form');
  });
});
