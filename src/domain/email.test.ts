// The one e-mail rule: what isEmailAddress accepts is what `format: "email"` (at most 254
// characters) accepts in the APIs' bodies, address by address.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { validatorCompiler } from '../http/validation.js';
import { isEmailAddress } from './email.js';

describe('the e-mail rule', () => {
  it('agrees with the schema of the APIs on every sample', () => {
    const schema = { type: 'string', format: 'email', maxLength: 254 };
    const check = validatorCompiler()({ schema, httpPart: 'body', method: 'POST', url: '/' }) as (value: unknown) => boolean;
    const samples: [string, boolean][] = [
      ['jane.doe@example.com', true],
      ['Jane.Doe+tag@Example.CO.uk', true],
      [`${'a'.repeat(64)}@${'b'.repeat(180)}.com`, true],
      [`${'a'.repeat(250)}@example.com`, false],
      ['jane@', false],
      ['not-an-address', false],
      ['jane@exa mple.com', false],
      [' jane@example.com', false],
      ['jäne@example.com', false],
      ['ev\u202ee@example.com', false],
      ['jane@localhost', false],
      ['', false],
    ];
    for (const [address, ok] of samples) {
      assert.equal(isEmailAddress(address), ok, address);
      assert.equal(check(address), ok, `the schema on ${address}`);
    }
  });
});
