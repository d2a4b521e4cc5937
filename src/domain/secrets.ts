// Comparing a secret someone gave with the one kept (an admin token, a CSRF token): in time
// independent of where they differ and of their lengths, by comparing their SHA-256 digests.
import { hash, timingSafeEqual } from 'node:crypto';

export function secretsEqual(given: string, expected: string): boolean {
  return timingSafeEqual(hash('sha256', given, 'buffer'), hash('sha256', expected, 'buffer'));
}
