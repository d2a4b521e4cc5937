// The one runner of background work: each job runs every so often on every node, never two runs
// of one job at once in a process; jobs that touch shared rows claim them with
// FOR UPDATE SKIP LOCKED, so nodes share the work instead of repeating it. Time comes from the
// clock the runner is given, so tests move it and call runOnce instead of waiting.
import type { FastifyBaseLogger } from 'fastify';
import { DatabaseUnavailable } from '../db/database.js';
import type { Clock } from '../domain/clock.js';

export interface Job {
  name: string;
  /** How often the job runs, in ms. */
  everyMs: number;
  /** How soon after start it first runs, in ms (default: everyMs). */
  firstMs?: number;
  /** Does one round of work as of `now`; returns how much it did (for the log at debug level). */
  run(now: Date): Promise<number | void>;
  /** Waits for work a run started and did not await (deliveries in flight). */
  settle?(): Promise<void>;
  /**
   * After a run: how soon to run again when work is known to be waiting (a backlog), in ms;
   * undefined: at the job's usual interval.
   */
  soonerMs?(): number | undefined;
}

export class JobRunner {
  private readonly jobs = new Map<string, { job: Job; timer?: NodeJS.Timeout; running?: Promise<unknown> }>();
  private stopped = false;

  constructor(
    private readonly log: Pick<FastifyBaseLogger, 'error' | 'debug'>,
    private readonly clock: Clock,
  ) {}

  add(job: Job): void {
    if (this.jobs.has(job.name)) throw new Error(`job ${job.name} is registered twice`);
    this.jobs.set(job.name, { job });
  }

  start(): void {
    for (const entry of this.jobs.values()) this.schedule(entry, entry.job.firstMs);
  }

  /** Runs one job now (tests, and the first run after start), unless a run of it is under way. */
  async runOnce(name: string): Promise<number | void> {
    const entry = this.jobs.get(name);
    if (!entry) throw new Error(`no job ${name}`);
    if (entry.running) {
      await entry.running;
      return 0;
    }
    const run = entry.job.run(this.clock());
    entry.running = run;
    try {
      return await run;
    } finally {
      entry.running = undefined;
    }
  }

  /** Runs one job now and waits for everything it started. */
  async runAndSettle(name: string): Promise<void> {
    await this.runOnce(name);
    await this.jobs.get(name)!.job.settle?.();
  }

  /** Stops scheduling and waits for runs under way and what they started. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const entry of this.jobs.values()) clearTimeout(entry.timer);
    await Promise.allSettled([...this.jobs.values()].map((e) => e.running));
    await Promise.allSettled([...this.jobs.values()].map((e) => e.job.settle?.()));
  }

  private schedule(entry: { job: Job; timer?: NodeJS.Timeout }, delayMs?: number): void {
    if (this.stopped) return;
    entry.timer = setTimeout(async () => {
      try {
        const done = await this.runOnce(entry.job.name);
        if (done) this.log.debug({ job: entry.job.name, done }, 'background job');
      } catch (error) {
        // Failing fast while the database is known to be away: the outage is logged once, where
        // it is found (src/server.ts); a line for every job at every turn would add nothing.
        if (error instanceof DatabaseUnavailable) this.log.debug({ err: error, job: entry.job.name }, 'background job skipped: the database is unreachable');
        else this.log.error({ err: error, job: entry.job.name }, 'background job failed; it runs again at its next turn');
      }
      this.schedule(entry, entry.job.soonerMs?.());
    }, delayMs ?? entry.job.everyMs);
    entry.timer.unref();
  }
}
