// Score reads by one candidate in one instance that arrive together are read together. Each read
// alone costs a statement: a write and a read on a pooled connection in the node, and on the server
// a round of the protocol, a bind and an executor start for one index lookup. Under load several
// such reads reach the node in the same turn of its event loop (about four at once under the
// bench's 10 connections), and the node then spends more on the statements than on the answers.
//
// So the reads that arrive in one turn are held until the turn's I/O has been handled (setImmediate,
// which runs once the turn's sockets have been read) and are then read in one statement
// (candidatePages), whose answer is split among them. A read that comes alone is read as before,
// by its own statement, one turn later: nothing waits on a timer, so a quiet node answers as soon
// as it did. Each read keeps its own instance in the statement; what one read sees does not depend
// on what it was read with, and a statement that fails fails the reads it held, as theirs would.
import type { Queryable } from '../../db/database.js';
import type { Maybe } from '../../domain/maybe.js';
import { candidatePages, firstPageStored, type CandidateRead, type FirstPage, type ScoreFilter } from './repository.js';

/** The most reads one statement holds; more waiting are read by further statements at once. */
export const MOST_READS_PER_STATEMENT = 100;

interface Waiting {
  read: CandidateRead;
  resolve(page: FirstPage | undefined): void;
  reject(error: unknown): void;
}

/** The first pages of score reads, by one candidate in one instance gathered per turn of the event loop. */
export class ScoreReads {
  #waiting: Waiting[] = [];

  constructor(private readonly db: Queryable) {}

  /**
   * The first page of records in scope as stored texts, undefined when a record of it is missing
   * (see firstPageStored): gathered with the turn's others when the read is by one candidate in one
   * instance, read at once otherwise.
   */
  firstPage(filter: ScoreFilter): Maybe<FirstPage | undefined> {
    const { instanceIds, candidateIds, assessmentIds } = filter;
    if (assessmentIds || instanceIds.length !== 1 || candidateIds?.length !== 1) return firstPageStored(this.db, filter);
    return new Promise((resolve, reject) => {
      if (this.#waiting.length === 0) setImmediate(this.#flush);
      this.#waiting.push({ read: { instanceId: instanceIds[0]!, candidateId: candidateIds[0]! }, resolve, reject });
    });
  }

  readonly #flush = () => {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (let from = 0; from < waiting.length; from += MOST_READS_PER_STATEMENT) void this.#read(waiting.slice(from, from + MOST_READS_PER_STATEMENT));
  };

  async #read(group: Waiting[]): Promise<void> {
    try {
      const pages = await candidatePages(
        this.db,
        group.map((w) => w.read),
      );
      for (let i = 0; i < group.length; i++) group[i]!.resolve(pages[i]);
    } catch (error) {
      for (const w of group) w.reject(error);
    }
  }
}
