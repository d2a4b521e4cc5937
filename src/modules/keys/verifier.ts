// Verifies API keys. A refused key is a normal result with a reason, never an exception; only
// the database failing throws. Verified records are kept in memory for a short, bounded time
// (KEY_CACHE_MS ≤ 5 s), which bounds how late another node's revocation is seen; a revocation
// on this node clears the cache at once.
import type { Queryable } from '../../db/database.js';
import { wallMs } from '../../domain/clock.js';
import { findKeyByHash, touchKey, type KeyRecord } from './repository.js';
import { looksLikeApiKey, sha256Hex } from './secret.js';

export type Verification = { valid: true; key: KeyRecord } | { valid: false; reason: 'MISSING' | 'MALFORMED' | 'NOT_FOUND' | 'REVOKED' | 'EXPIRED' };

const MAX_CACHED = 10_000;
// last_used_at is written at most this often per key and node: a write per request would make
// every read a write.
const TOUCH_EVERY_MS = 60_000;

export class KeyVerifier {
  private readonly cache = new Map<string, { record: KeyRecord | undefined; until: number }>();
  private readonly touched = new Map<string, number>();
  /**
   * The SHA-256 of the key last presented on each connection: a client sends the same key with
   * every request of a keep-alive connection, and hashing it cost a score read about 1.5 µs of CPU.
   * Kept while the connection lives (it carries the key with every request anyway), and compared
   * only with what that same connection presents.
   */
  private readonly lastHashed = new WeakMap<object, { presented: string; hash: string }>();

  constructor(
    private readonly db: Queryable,
    private readonly ttlMs: number,
    private readonly onTouchError: (error: unknown) => void = () => {},
    /** The clock that decides expiry and how long a cached verdict lasts (tests move it). */
    private readonly now: () => number = wallMs,
  ) {}

  async verify(presented: string | undefined): Promise<Verification> {
    if (presented === undefined || presented === '') return { valid: false, reason: 'MISSING' };
    if (!looksLikeApiKey(presented)) return { valid: false, reason: 'MALFORMED' };
    const record = await this.lookup(sha256Hex(presented));
    if (!record) return { valid: false, reason: 'NOT_FOUND' };
    const now = this.now();
    if (record.revokedAt && record.revokedAt.getTime() <= now) return { valid: false, reason: 'REVOKED' };
    if (record.expiresAt && record.expiresAt.getTime() <= now) return { valid: false, reason: 'EXPIRED' };
    this.touch(record.id, now);
    return { valid: true, key: record };
  }

  /**
   * The verdict on a key from this node's memory alone, when it holds a fresh one that says the
   * key is valid; undefined when the database would have to be asked (or the key is refused).
   * `connection` (the request's socket) lets a key presented again on it skip its hashing.
   */
  cachedValid(presented: string, connection?: object): KeyRecord | undefined {
    const hash = this.hashOf(presented, connection);
    if (hash === undefined) return undefined;
    const cached = this.cache.get(hash);
    const now = this.now();
    if (!cached?.record || cached.until <= now) return undefined;
    const { record } = cached;
    if ((record.revokedAt && record.revokedAt.getTime() <= now) || (record.expiresAt && record.expiresAt.getTime() <= now)) return undefined;
    this.touch(record.id, now);
    return record;
  }

  /** The SHA-256 (hex) of a well-formed key; undefined for anything else. */
  private hashOf(presented: string, connection: object | undefined): string | undefined {
    const last = connection && this.lastHashed.get(connection);
    if (last && last.presented === presented) return last.hash;
    if (!looksLikeApiKey(presented)) return undefined;
    const hash = sha256Hex(presented);
    if (connection) this.lastHashed.set(connection, { presented, hash });
    return hash;
  }

  /** Drops everything cached: called when this node revokes a key or changes grants. */
  forget(): void {
    this.cache.clear();
  }

  /** The key whose SHA-256 is `id` (hex): from the cache while fresh, else from the database. */
  private async lookup(id: string): Promise<KeyRecord | undefined> {
    const cached = this.cache.get(id);
    if (cached && cached.until > this.now()) return cached.record;
    const record = await findKeyByHash(this.db, Buffer.from(id, 'hex'));
    if (this.ttlMs > 0) {
      if (this.cache.size >= MAX_CACHED) this.cache.delete(this.cache.keys().next().value!);
      this.cache.delete(id);
      this.cache.set(id, { record, until: this.now() + this.ttlMs });
    }
    return record;
  }

  private touch(keyId: string, now: number): void {
    const last = this.touched.get(keyId);
    if (last !== undefined && now - last < TOUCH_EVERY_MS) return;
    if (this.touched.size >= MAX_CACHED) this.touched.clear();
    this.touched.set(keyId, now);
    touchKey(this.db, keyId, new Date(now)).catch(this.onTouchError);
  }
}
