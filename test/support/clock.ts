// The one clock helper of the tests. The app takes its clock as `now` (buildApp's config): a test
// moves this clock instead of waiting, and asserts on what the service did, never on elapsed time.

/** The real time plus an offset that a test moves forward (or sets back to 0). */
export interface MovingClock {
  now: () => Date;
  /** Milliseconds added to the real time. */
  offset: number;
}

export function movingClock(): MovingClock {
  const clock: MovingClock = { offset: 0, now: () => new Date(Date.now() + clock.offset) };
  return clock;
}

/** A clock that stands still (at `at`, ms since the epoch) until a test moves it. */
export interface FrozenClock {
  now: () => Date;
  at: number;
  move(ms: number): void;
}

export function frozenClock(at = Date.now()): FrozenClock {
  const clock: FrozenClock = {
    at,
    now: () => new Date(clock.at),
    move(ms: number) {
      clock.at += ms;
    },
  };
  return clock;
}
