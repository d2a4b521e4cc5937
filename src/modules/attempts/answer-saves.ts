// Answers saved again that arrive together are written together, as score reads are read together
// (scores/candidate-reads.ts). Nearly every save of a campaign is an answer given again, one
// statement (save_answer_again); alone, each costs a round trip, a transaction and a commit, and
// under load the commits are most of PostgreSQL's work per save.
//
// So the saves whose statement is asked for in one turn of the event loop are held until the turn's
// I/O has been handled (setImmediate) and are then written by one statement, save_answers_again
// (0043-save-answers-again-together.sql), which runs save_answer_again for each with its own
// attempt, session and clock and answers each its own outcome. A save that comes alone is written
// by its own statement, as before; nothing waits on a timer. Every save is answered only once the
// statement that wrote it has committed. A statement of several that fails (a deadlock with a
// submit, say) is not the saves' failure: each is then written alone, and fails or not as alone.
//
// Only the statement is gathered: the checks before it (the question shown, the answer's kind)
// are the saveAnswer command's, run per save, and the command asks for this statement only when it
// runs without a transaction of its own (runOneStatementCommand), on this same store.
import type { Database } from '../../db/database.js';

/** What a save statement answers: written, no answer yet to change, the attempt finished or past its time, the session ended. */
export type SaveOutcome = 'saved' | 'new' | 'closed' | 'session';

export interface SaveAgain {
  attemptId: string;
  questionId: string;
  /** The answer as JSON text. */
  value: string;
  invitationId: string;
  now: Date;
  /** The hash of the portal session's cookie, when the save must be refused once it ended. */
  session: Buffer | null;
}

/** The most saves one statement holds; more waiting are written by further statements at once. */
export const MOST_SAVES_PER_STATEMENT = 100;

const ONE = '/* answer_save_again */ SELECT save_answer_again($1, $2, $3::jsonb, $4, $5, $6) AS outcome';
const MANY = `/* answer_saves_again */ SELECT save_answers_again($1::uuid[], $2::text[], $3::text[], $4::bigint[], $5::timestamptz[], $6::text[]) AS outcomes`;

interface Waiting {
  save: SaveAgain;
  resolve(outcome: SaveOutcome | undefined): void;
  reject(error: unknown): void;
}

/** The statements of answers saved again on one store, gathered per turn of the event loop. */
export class AnswerSaves {
  #waiting: Waiting[] = [];

  constructor(readonly db: Database) {}

  /** save_answer_again for this save, written with the turn's others; its outcome once committed. */
  again(save: SaveAgain): Promise<SaveOutcome | undefined> {
    return new Promise((resolve, reject) => {
      if (this.#waiting.length === 0) setImmediate(this.#flush);
      this.#waiting.push({ save, resolve, reject });
    });
  }

  readonly #flush = () => {
    const waiting = this.#waiting;
    this.#waiting = [];
    for (let from = 0; from < waiting.length; from += MOST_SAVES_PER_STATEMENT) void this.#write(waiting.slice(from, from + MOST_SAVES_PER_STATEMENT));
  };

  async #write(group: Waiting[]): Promise<void> {
    if (group.length > 1) {
      let outcomes: (SaveOutcome | undefined)[] | undefined;
      try {
        outcomes = await this.#many(group.map((w) => w.save));
      } catch {
        // Each alone below, refused or not as it would be alone.
      }
      if (outcomes) {
        for (let i = 0; i < group.length; i++) group[i]!.resolve(outcomes[i]);
        return;
      }
    }
    await Promise.all(
      group.map(async (w) => {
        try {
          w.resolve(await saveAgainAlone(this.db, w.save));
        } catch (error) {
          w.reject(error);
        }
      }),
    );
  }

  async #many(saves: SaveAgain[]): Promise<(SaveOutcome | undefined)[]> {
    const params = [
      saves.map((s) => s.attemptId),
      saves.map((s) => s.questionId),
      saves.map((s) => s.value),
      saves.map((s) => s.invitationId),
      saves.map((s) => s.now.toISOString()),
      saves.map((s) => (s.session ? s.session.toString('hex') : null)),
    ];
    const { rows } = this.db.prepared
      ? await this.db.prepared<{ outcomes: SaveOutcome[] }>('answer-saves-again', MANY, params)
      : await this.db.query<{ outcomes: SaveOutcome[] }>(MANY, params);
    return rows[0]?.outcomes ?? [];
  }
}

/** save_answer_again for one save, in a statement of its own on `db` (a transaction's or not). */
export async function saveAgainAlone(db: { query: Database['query'] }, s: SaveAgain): Promise<SaveOutcome | undefined> {
  const { rows } = await db.query<{ outcome: SaveOutcome }>(ONE, [s.attemptId, s.questionId, s.value, s.invitationId, s.now, s.session]);
  return rows[0]?.outcome;
}
