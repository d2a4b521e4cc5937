// The one-shot hashes of secrets give what createHash gives, for every kind of text a secret or a
// presented credential may be (keys, tokens, session cookies, and whatever a client sends).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { it } from 'node:test';
import { generateApiKey, generateToken, sha256, sha256Hex } from './secret.js';

const reference = (value: string) => createHash('sha256').update(value, 'utf8').digest();

it('hashes like createHash, as bytes and as hex, ASCII or not, empty or long', () => {
  for (const value of ['', 'ack_x', generateApiKey().key, generateToken().token, 'Zoë Ødegård 数学 🙂', '\u0000', 'x'.repeat(100_000)]) {
    assert.deepEqual(sha256(value), reference(value), JSON.stringify(value.slice(0, 20)));
    assert.equal(sha256Hex(value), reference(value).toString('hex'));
  }
});

it('stores with a new key the hash of that key', () => {
  const { key, hash } = generateApiKey();
  assert.deepEqual(hash, reference(key));
  assert.equal(sha256Hex(key), hash.toString('hex'));
});
