// The clock the typing test is timed by. By default the database's now(): one clock for every
// node, so that a typing test started on one node and submitted on another is timed right. Tests
// inject their own clock and move it instead of sleeping.

export type Now = () => Date;

let injected: Now | undefined;

/** Times the typing test by `now` from here on; undefined returns to the database's clock. */
export function useClock(now: Now | undefined): void {
  injected = now;
}

/** The injected time, or null for the database's now(): pass as `coalesce($n::timestamptz, now())`. */
export function clockParam(): Date | null {
  return injected ? injected() : null;
}
