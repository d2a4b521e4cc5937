// Retrying a transaction that lost a race to another (a deadlock, a serialisation failure).
const RETRYABLE = new Set(['40P01', '40001']);

/** Retries a transaction that lost a deadlock or serialisation race; each try is all-or-nothing. */
export async function retryOnConflict<T>(work: () => Promise<T>, attempts = 3): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= attempts || !code || !RETRYABLE.has(code)) throw error;
    }
  }
}
