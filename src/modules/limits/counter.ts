// Fixed-window counters for the request budget and the failed-authentication limit. A window
// opens with the first hit on a key and lasts windowMs; the count resets when it closes. Fixed
// (not sliding) windows cost one atomic Redis call per request and are easy to explain in the
// RateLimit header: "r requests left, the window closes in t seconds".
//
// With REDIS_URL the counts are shared by every node; without it, or while Redis is unreachable,
// each node counts for itself (a client may then get up to budget × nodes per window). Redis
// being away never fails or slows a request: commands are not queued while disconnected, time
// out after COMMAND_TIMEOUT_MS, and the client reconnects by itself in the background.
import { Redis } from 'ioredis';
import type { Maybe } from '../../domain/maybe.js';
import { wallMs } from '../../domain/clock.js';

export interface WindowState {
  /** Hits in the current window, this one included (for peek: without a new hit). */
  count: number;
  /** Milliseconds until the current window closes. */
  resetMs: number;
}

export interface Counter {
  /** Counts one hit on key and says where the window stands. */
  hit(key: string, windowMs: number): Maybe<WindowState>;
  /** Where the window of key stands, without counting. */
  peek(key: string): Maybe<WindowState>;
  /** Takes back one hit of key in its current window (never below 0, never opening a window). */
  undo(key: string): Promise<void>;
  /** Resolves when the counter can count where it should (or after timeoutMs, whichever first). */
  ready(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

const MAX_KEYS = 100_000;

/** Counts in this process's memory, answering at once. */
export class MemoryCounter implements Counter {
  private readonly windows = new Map<string, { count: number; endsAt: number }>();

  hit(key: string, windowMs: number): WindowState {
    const now = wallMs();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      if (this.windows.size >= MAX_KEYS) this.prune(now);
      window = { count: 0, endsAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return { count: window.count, resetMs: window.endsAt - now };
  }

  peek(key: string): WindowState {
    const now = wallMs();
    const window = this.windows.get(key);
    if (!window || window.endsAt <= now) return { count: 0, resetMs: 0 };
    return { count: window.count, resetMs: window.endsAt - now };
  }

  async undo(key: string): Promise<void> {
    const window = this.windows.get(key);
    if (window && window.endsAt > wallMs() && window.count > 0) window.count -= 1;
  }

  async ready(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    this.windows.clear();
  }

  /** Drops closed windows; if every window is open, the oldest half, so memory stays bounded. */
  private prune(now: number): void {
    for (const [key, window] of this.windows) if (window.endsAt <= now) this.windows.delete(key);
    if (this.windows.size < MAX_KEYS) return;
    let drop = Math.floor(this.windows.size / 2);
    for (const key of this.windows.keys()) {
      if (drop-- <= 0) break;
      this.windows.delete(key);
    }
  }
}

export const KEY_PREFIX = 'ac:rl:';
const COMMAND_TIMEOUT_MS = 200;
const CONNECT_TIMEOUT_MS = 1000;
const WARN_EVERY_MS = 60_000;

// INCR and the expiry in one atomic step, so that no key is left without a TTL (which would
// block a client for good) and two nodes never both start a window.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

// DECR only a key that exists (and keeps its TTL): a window that closed meanwhile is not reopened.
const UNDO_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 and tonumber(redis.call('GET', KEYS[1])) > 0 then
  return redis.call('DECR', KEYS[1])
end
return 0`;

export interface Warn {
  (details: Record<string, unknown>, message: string): void;
}

/**
 * Counts in Redis, and in memory while Redis cannot answer. The warning about the fallback is
 * logged once per WARN_EVERY_MS, not per request.
 */
export class RedisCounter implements Counter {
  private readonly redis: Redis;
  private readonly fallback = new MemoryCounter();
  private lastWarning = 0;

  constructor(
    url: string,
    private readonly warn: Warn,
  ) {
    this.redis = new Redis(url, {
      enableOfflineQueue: false,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
      maxRetriesPerRequest: 0,
      // Keep trying in the background, at most every 2 s; requests never wait for it.
      retryStrategy: (times) => Math.min(times * 200, 2000),
      lazyConnect: false,
    });
    this.redis.defineCommand('acHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.redis.defineCommand('acUndo', { numberOfKeys: 1, lua: UNDO_SCRIPT });
    // Without a listener a connection error would be an unhandled 'error' event.
    this.redis.on('error', (error: Error) => this.fellBack(error));
  }

  async hit(key: string, windowMs: number): Promise<WindowState> {
    try {
      const [count, ttl] = await (this.redis as unknown as { acHit(key: string, windowMs: number): Promise<[number, number]> }).acHit(KEY_PREFIX + key, windowMs);
      return { count: Number(count), resetMs: Math.max(0, Number(ttl)) };
    } catch (error) {
      this.fellBack(error as Error);
      return this.fallback.hit(key, windowMs);
    }
  }

  async peek(key: string): Promise<WindowState> {
    try {
      const [[, count], [, ttl]] = (await this.redis
        .multi()
        .get(KEY_PREFIX + key)
        .pttl(KEY_PREFIX + key)
        .exec()) as [[null, string | null], [null, number]];
      if (count === null || ttl < 0) return { count: 0, resetMs: 0 };
      return { count: Number(count), resetMs: ttl };
    } catch (error) {
      this.fellBack(error as Error);
      return this.fallback.peek(key);
    }
  }

  async undo(key: string): Promise<void> {
    try {
      await (this.redis as unknown as { acUndo(key: string): Promise<number> }).acUndo(KEY_PREFIX + key);
    } catch (error) {
      this.fellBack(error as Error);
      await this.fallback.undo(key);
    }
  }

  ready(timeoutMs: number): Promise<boolean> {
    if (this.redis.status === 'ready') return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.redis.once('ready', onReady);
    });
  }

  async close(): Promise<void> {
    this.redis.disconnect();
    await this.fallback.close();
  }

  private fellBack(error: Error): void {
    const now = wallMs();
    if (now - this.lastWarning < WARN_EVERY_MS) return;
    this.lastWarning = now;
    this.warn({ err: { message: error.message } }, 'Redis is unreachable: counting rate limits in this process until it is back');
  }
}

/** Redis when a URL is given, otherwise this process's memory. */
export function createCounter(redisUrl: string | undefined, warn: Warn): Counter {
  return redisUrl ? new RedisCounter(redisUrl, warn) : new MemoryCounter();
}
