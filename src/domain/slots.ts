// A counting semaphore whose waiters give up at a deadline: the mailer's pooled connections, and
// the media reads that may run at once (src/modules/assessments/media-routes.ts).
import { monotonicMs } from './clock.js';

/** A counting semaphore whose waiters give up at a deadline. */
export class Slots {
  private readonly waiting: { grant: () => void }[] = [];
  constructor(private free: number) {}

  /** Resolves to a release function, or to undefined when the deadline passed first. */
  acquire(deadline: number): Promise<(() => void) | undefined> {
    const release = () => {
      const next = this.waiting.shift();
      if (next) next.grant();
      else this.free++;
    };
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(once(release));
    }
    return new Promise((resolve) => {
      const waiter = {
        grant: () => {
          clearTimeout(timer);
          resolve(once(release));
        },
      };
      const timer = setTimeout(
        () => {
          this.waiting.splice(this.waiting.indexOf(waiter), 1);
          resolve(undefined);
        },
        Math.max(0, deadline - monotonicMs()),
      );
      this.waiting.push(waiter);
    });
  }
}

function once(fn: () => void): () => void {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      fn();
    }
  };
}
