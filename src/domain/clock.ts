// The one file that reads the wall clock. Every command, job and page gets its time from a Clock
// handed down from the app (config.now: tests pass one they move), and SQL gets that time as a
// parameter: the database's now() decides nothing. Durations and the pacing of loops use
// monotonicMs(), which is no wall clock and which no test needs to move.

/** The time a command, job or page decides by. */
export type Clock = () => Date;

/** The system's clock: the default of the app, and of a process that has no app (the CLI's server start). */
export const systemClock: Clock = () => new Date();

/**
 * The wall clock in ms since the epoch, where a value must be the real time of the moment
 * whatever clock the app decides by: a log line's `time`, a webhook's `webhook-timestamp` (the
 * receiver compares it with its own clock), a rate limit's window.
 */
export const wallMs = (): number => Date.now();

/** A monotonic time in ms, for durations and for pacing a loop; not a date. */
export const monotonicMs = (): number => performance.now();
