// The one rule for an e-mail address the service accepts (a candidate's, a console user's, a
// sender's): at most 254 characters, of the form Ajv's `format: "email"` checks in every JSON body
// of the APIs (ajv-formats' full mode, whose expression this is). Code that is not a schema
// (a form of the console, a command) asks isEmailAddress, so that both say the same.
import { fullFormats } from 'ajv-formats/dist/formats.js';

/** The longest address accepted (RFC 5321's path limit less its brackets). */
export const EMAIL_MAX_LENGTH = 254;

const FORM = fullFormats.email as RegExp;

export function isEmailAddress(value: string): boolean {
  return value.length <= EMAIL_MAX_LENGTH && FORM.test(value);
}

/** What is said of an address that breaks the rule. */
export const EMAIL_MESSAGE = 'is not an e-mail address';
