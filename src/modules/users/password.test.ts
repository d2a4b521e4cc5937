import assert from 'node:assert/strict';
import { randomBytes, scryptSync } from 'node:crypto';
import { describe, it } from 'node:test';
import { hashPassword, scryptCost, verifyPassword } from './password.js';

describe('password hashes', () => {
  it('are made at N = 2^15 in production and cheaper only under the test runner', () => {
    assert.equal(scryptCost({}), 15);
    assert.equal(scryptCost({ NODE_ENV: 'production' }), 15);
    assert.equal(scryptCost({ NODE_ENV: 'development' }), 15);
    assert.equal(scryptCost({ NODE_ENV: 'test' }), 10);
  });

  it('verify the password they were made from, and no other', async () => {
    const stored = await hashPassword('correct horse battery staple');
    assert.match(stored, /^scrypt\$\d+\$8\$1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/);
    assert.equal(await verifyPassword(stored, 'correct horse battery staple'), true);
    assert.equal(await verifyPassword(stored, 'correct horse battery stapl'), false);
    assert.equal(await verifyPassword(undefined, 'correct horse battery staple'), false, 'no stored hash: the decoy, never a match');
    assert.equal(await verifyPassword('bcrypt$whatever', 'correct horse battery staple'), false);
  });

  it('are checked with the parameters each hash names, so a hash made at 2^15 verifies whatever the cost of new ones', async () => {
    const salt = randomBytes(16);
    const key = scryptSync('an older password here', salt, 32, { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    const stored = `scrypt$15$8$1$${salt.toString('base64')}$${key.toString('base64')}`;
    assert.equal(await verifyPassword(stored, 'an older password here'), true);
    assert.equal(await verifyPassword(stored, 'another password here'), false);
  });
});
