// Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` and the
// base64 of 24-64 random bytes; each message is signed as
//   webhook-signature: v1,<base64 HMAC-SHA256(secret bytes, "<webhook-id>.<webhook-timestamp>.<body>")>
// and several signatures (during a secret rotation) are separated by spaces. Pure: no I/O.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export function generateSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

export function sign(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The three Standard Webhooks headers of one attempt, signed with every secret given. */
export function webhookHeaders(secrets: string[], messageId: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((secret) => sign(secret, messageId, timestampSeconds, body)).join(' '),
  };
}

/** A message id: `msg_` and 24 random base62 characters; the same on every retry of one message. */
export function messageId(): string {
  const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
  let out = 'msg_';
  for (const byte of randomBytes(32)) {
    if (byte < 248) out += alphabet[byte % 62];
    if (out.length === 28) break;
  }
  return out.length === 28 ? out : messageId();
}
