// Steady load for the fault suites: loops that invite new candidates and read scores, recording
// for every request its outcome and latency, until told to stop.
import { randomUUID } from 'node:crypto';

export interface Outcome {
  kind: 'invite' | 'score';
  status: number; // 0: no HTTP answer (the error says why)
  ms: number;
  error?: string;
  problem?: boolean;
  retryAfter?: string | null;
  email?: string;
  candidateId?: string;
  startedAt: number;
}

export interface Load {
  outcomes: Outcome[];
  stop(): Promise<void>;
}

export function startLoad(target: () => string, key: string, instance: string, assessments: string[], loops = 16, clientTimeoutMs = 5000): Load {
  const outcomes: Outcome[] = [];
  let running = true;
  let lastCandidate: string = randomUUID();
  const one = async (i: number): Promise<void> => {
    const kind = i % 2 === 0 ? 'invite' : 'score';
    const startedAt = Date.now();
    const email = kind === 'invite' ? `load-${randomUUID()}@example.com` : undefined;
    try {
      const response = await fetch(
        kind === 'invite' ? `${target()}/v1/invite` : `${target()}/v1/score?candidateIds=${lastCandidate}`,
        kind === 'invite'
          ? {
              method: 'POST',
              headers: { 'x-api-key': key, instance, 'content-type': 'application/json' },
              body: JSON.stringify({ email, firstName: 'Load', lastName: 'Test', assessments }),
              signal: AbortSignal.timeout(clientTimeoutMs),
            }
          : { headers: { 'x-api-key': key }, signal: AbortSignal.timeout(clientTimeoutMs) },
      );
      const text = await response.text();
      const outcome: Outcome = {
        kind,
        status: response.status,
        ms: Date.now() - startedAt,
        startedAt,
        email,
        problem: (response.headers.get('content-type') ?? '').startsWith('application/problem+json'),
        retryAfter: response.headers.get('retry-after'),
      };
      if (kind === 'invite' && response.status === 200) lastCandidate = outcome.candidateId = (JSON.parse(text) as { candidateId: string }[])[0]!.candidateId;
      outcomes.push(outcome);
    } catch (error) {
      outcomes.push({ kind, status: 0, ms: Date.now() - startedAt, startedAt, email, error: String((error as Error).cause ?? error) });
    }
  };
  const loopsDone = Array.from({ length: loops }, async (_, loop) => {
    for (let i = loop; running; i++) await one(i);
  });
  return {
    outcomes,
    async stop() {
      running = false;
      await Promise.all(loopsDone);
    },
  };
}

export const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
};
