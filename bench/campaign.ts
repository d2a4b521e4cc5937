// The campaign driver, in a process of its own (as bench/load.ts): N candidates invited through
// POST /v1/invite and driven through the portal's own HTTP API as portal.js and the browser drive
// it, with plain node:http and one keep-alive agent of many connections (not autocannon: each
// candidate paces itself). Reads one job as JSON from argv[2], prints its figures as one JSON line.
//
// Per candidate: POST /v1/invite → the link's sessionToken → POST /portal/api/session (the
// cookie) → GET /portal/ (the list) → GET /portal/a/alpha (the intro page: its CSRF token) →
// POST /portal/a/alpha/start (a form post, 303) → GET /portal/a/alpha (the first question). Then,
// `campaign`: every candidate saves an answer (PUT /portal/api/a/alpha/answers/<q>, JSON, 204)
// every `intervalMs` ±20 % for `seconds`, cycling through the four questions with the free-text
// answer growing; the same schedule is then run against the bare baseline's PUT /answer (the same
// rows through the service's saveAnswer); then each candidate takes the typing test (GET the typing
// page, POST typing/start, POST typing) and submits (a form post, 303), the candidates finishing
// at random moments over max(10 s, 20 ms each). `complete`: the same
// setup, then the N submissions spread evenly over `seconds` (the webhook scenario). `submits`
// (bench/submits.ts): the same setup on `assessment`, each candidate answering every question of
// its answer set on the service and the same on the baseline, then one round of submissions spread
// over `seconds` per line `service` or `baseline` read from stdin, each answered with one JSON line.
//
// Latency of a save is from its scheduled time to the end of the answer, so that a server falling
// behind shows as latency and is not hidden by a generator waiting for it.
import http from 'node:http';
import { createInterface } from 'node:readline';
import { cpuUs } from '../test/reliability/support/server.js';
import { pgPhase, type PgFigures } from './pg-phase.js';

interface Job {
  mode: 'campaign' | 'complete' | 'saves' | 'submits';
  url: string;
  /** The assessment's slug (default alpha). */
  assessment?: string;
  /** The bare baseline (campaign mode), or none to skip the baseline phase. */
  baselineUrl?: string;
  key: string;
  n: number;
  seconds: number;
  intervalMs?: number;
  /** Connections of the keep-alive agent at most (default min(n, 1000)). */
  connections?: number;
  /** Take the typing test before submitting (campaign mode; default true). */
  typing?: boolean;
  /** Server processes whose CPU time per save is reported: service and baseline. */
  servicePid?: number;
  baselinePid?: number;
  /** Candidates being set up at once. */
  setupConcurrency?: number;
  /** `saves`: alternated rounds of service and baseline, each a closed loop of `connections` for `seconds`. */
  rounds?: number;
  /** `saves`: the assessment's id, the baseline's key beside the candidate's. */
  assessmentId?: string;
  /** `submits`: how long to keep reading a score that is not ready yet, after its submission (default 120 s). */
  waitSeconds?: number;
  /** `submits`: the answers candidate i gives, answerSets[i % length] ({questionId: value}). */
  answerSets?: Record<string, unknown>[];
  /** `saves` on PostgreSQL: where the statistics of each phase are read (PostgreSQL's CPU, WAL, rows). */
  databaseUrl?: string;
}

const job = JSON.parse(process.argv[2]!) as Job;
const intervalMs = job.intervalMs ?? 5000;
/** The assessment the candidates take. */
const slug = job.assessment ?? 'alpha';
const cpuOf = (pid?: number) => (pid ? cpuUs(pid) : 0);

const agent = new http.Agent({ keepAlive: true, maxSockets: job.connections ?? Math.min(job.n, 1000) });

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function call(base: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const url = new URL(path, base);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        agent,
        headers: body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
        response.on('error', reject);
      },
    );
    request.setTimeout(30_000, () => request.destroy(new Error('no answer within 30 s')));
    request.on('error', reject);
    request.end(body);
  });
}

const origin = new URL(job.url).origin;
/** What a current browser adds to its own page's requests. */
const browser = { origin, 'sec-fetch-site': 'same-origin', 'user-agent': 'Mozilla/5.0 (bench campaign)' };

interface Candidate {
  i: number;
  candidateId: string;
  cookie: string;
  csrf: string;
  saves: number;
}

const failures: string[] = [];
const fail = (what: string, answer?: Answer | Error) => {
  if (failures.length < 20) failures.push(`${what}: ${answer instanceof Error ? answer.message : `${answer?.status} ${answer?.body.slice(0, 200)}`}`);
};

const runId = `${process.pid}-${Date.now()}`;

async function setUp(i: number): Promise<Candidate | undefined> {
  try {
    const invited = await call(
      job.url,
      'POST',
      '/v1/invite',
      { 'x-api-key': job.key, instance: 'bench', 'content-type': 'application/json' },
      JSON.stringify({ email: `campaign-${runId}-${i}@load.example`, firstName: 'Camp', lastName: `Aign${i}`, assessments: [slug] }),
    );
    if (invited.status !== 200) return void fail('invite', invited);
    const { link, candidateId } = (JSON.parse(invited.body) as { link: string; candidateId: string }[])[0]!;
    const token = /sessionToken=([A-Za-z0-9_-]+)/.exec(link)![1]!;
    const session = await call(job.url, 'POST', '/portal/api/session', { ...browser, 'content-type': 'application/json' }, JSON.stringify({ token }));
    if (session.status !== 200) return void fail('session', session);
    const cookie = String(session.headers['set-cookie']?.[0] ?? '').split(';')[0]!;
    const list = await call(job.url, 'GET', '/portal/', { ...browser, cookie });
    if (list.status !== 200) return void fail('list', list);
    const intro = await call(job.url, 'GET', `/portal/a/${slug}`, { ...browser, cookie });
    const csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(intro.body)?.[1];
    if (intro.status !== 200 || !csrf) return void fail('intro', intro);
    const started = await call(
      job.url,
      'POST',
      `/portal/a/${slug}/start`,
      { ...browser, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      `_csrf=${encodeURIComponent(csrf)}`,
    );
    if (started.status !== 303) return void fail('start', started);
    const first = await call(job.url, 'GET', `/portal/a/${slug}`, { ...browser, cookie });
    if (first.status !== 200) return void fail('first question', first);
    return { i, candidateId, cookie, csrf, saves: 0 };
  } catch (error) {
    return void fail('setup', error as Error);
  }
}

/** Runs `work` over 0..n-1, `width` at a time. */
async function pool<T>(n: number, width: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, n) }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await work(i);
      }
    }),
  );
  return out;
}

const PASSAGE = 'The quick brown fox jumps over the lazy dog while the warehouse team counts every box twice.';
const STORY = 'A customer called because an order had not arrived; I tracked it, found it held at the depot, arranged delivery the next morning and called back to confirm. ';

/** The k-th save of a candidate: the four questions in turn, the free-text answer growing. */
function answerOf(k: number): { question: string; value: unknown } {
  switch (k % 4) {
    case 0:
      return { question: 'q1', value: k % 8 === 0 ? 1 : 0 };
    case 1:
      return { question: 'q2', value: [0, 2] };
    case 2:
      return { question: 'q3', value: k % 3 === 0 ? '1250' : '125' };
    default:
      return { question: 'q4', value: STORY.repeat(1 + Math.floor(k / 4)).slice(0, 3000) };
  }
}

const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
const round = (n: number) => Math.round(n * 10) / 10;

export interface SaveFigures {
  saves: number;
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  cpuUsPerSave: number;
}

/** Every candidate saves every intervalMs ±20 % for job.seconds against one server. */
async function savePhase(candidates: Candidate[], target: 'service' | 'baseline'): Promise<SaveFigures> {
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  const pid = target === 'service' ? job.servicePid : job.baselinePid;
  const cpuBefore = cpuOf(pid);
  const began = performance.now();
  const end = began + job.seconds * 1000;
  const inFlight = new Set<Promise<void>>();
  await Promise.all(
    candidates.map(async (c) => {
      let due = began + Math.random() * intervalMs;
      for (;;) {
        if (due >= end) return;
        await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
        const scheduled = due;
        const { question, value } = answerOf(c.saves++);
        const body = JSON.stringify({ value });
        const sent =
          target === 'service'
            ? call(job.url, 'PUT', `/portal/api/a/${slug}/answers/${question}`, { ...browser, cookie: c.cookie, 'x-csrf-token': c.csrf, 'content-type': 'application/json' }, body)
            : call(job.baselineUrl!, 'PUT', `/answer/${c.candidateId}/${job.assessmentId}/${question}`, { 'content-type': 'application/json' }, body);
        // Saves do not wait for each other: a slow answer does not delay the candidate's next save.
        const work = sent.then(
          (answer) => {
            latencies.push(performance.now() - scheduled);
            if (answer.status < 200 || answer.status > 299) {
              non2xx++;
              fail(`save on ${target}`, answer);
            }
          },
          (error: Error) => {
            errors++;
            fail(`save on ${target}`, error);
          },
        );
        inFlight.add(work);
        void work.finally(() => inFlight.delete(work));
        due = scheduled + intervalMs * (0.8 + Math.random() * 0.4);
      }
    }),
  );
  await Promise.all([...inFlight]);
  return figuresOf(latencies, non2xx, errors, began, cpuOf(pid) - cpuBefore);
}

/** A phase's figures from its latencies (ms), failures, start (performance.now()) and the server's CPU time (µs). */
function figuresOf(latencies: number[], non2xx: number, errors: number, began: number, cpu: number): SaveFigures {
  const elapsed = (performance.now() - began) / 1000;
  const sorted = latencies.sort((a, b) => a - b);
  const saves = latencies.length + errors;
  return {
    saves,
    perSecond: round(saves / elapsed),
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1] ?? 0),
    non2xx,
    errors,
    cpuUsPerSave: round(cpu / Math.max(1, saves)),
  };
}

export interface ClosedFigures extends SaveFigures {
  /** PostgreSQL's side of the phase (PostgreSQL only). */
  pg?: PgFigures;
}

/**
 * A closed loop: `job.connections` senders for `job.seconds`, each sending the next candidate's
 * next save as soon as its last one is answered (the candidates in turn). Latency is from send.
 */
async function closedPhase(candidates: Candidate[], target: 'service' | 'baseline', seconds = job.seconds): Promise<ClosedFigures> {
  const latencies: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let next = 0;
  const pid = target === 'service' ? job.servicePid : job.baselinePid;
  const pgSide = job.databaseUrl ? await pgPhase(job.databaseUrl, target === 'service' ? 'assessment-connect' : 'bench-save-baseline') : undefined;
  const cpuBefore = cpuOf(pid);
  const began = performance.now();
  const end = began + seconds * 1000;
  await Promise.all(
    Array.from({ length: job.connections ?? 32 }, async () => {
      while (performance.now() < end) {
        const c = candidates[next++ % candidates.length]!;
        const { question, value } = answerOf(c.saves++);
        const body = JSON.stringify({ value });
        const sentAt = performance.now();
        try {
          const answer =
            target === 'service'
              ? await call(
                  job.url,
                  'PUT',
                  `/portal/api/a/${slug}/answers/${question}`,
                  { ...browser, cookie: c.cookie, 'x-csrf-token': c.csrf, 'content-type': 'application/json' },
                  body,
                )
              : await call(job.baselineUrl!, 'PUT', `/answer/${c.candidateId}/${job.assessmentId}/${question}`, { 'content-type': 'application/json' }, body);
          latencies.push(performance.now() - sentAt);
          if (answer.status < 200 || answer.status > 299) {
            non2xx++;
            fail(`save on ${target}`, answer);
          }
        } catch (error) {
          errors++;
          fail(`save on ${target}`, error as Error);
        }
      }
    }),
  );
  const figures = figuresOf(latencies, non2xx, errors, began, cpuOf(pid) - cpuBefore);
  return { ...figures, pg: pgSide ? await pgSide.end(figures.saves) : undefined };
}

/**
 * The typing test (when asked) and the submission of one candidate; true when all went as in a
 * browser. `onSubmitted` is told the submission's time (ms, from sending to its 303).
 */
async function finish(c: Candidate, typing: boolean, onSubmitted?: (ms: number) => void): Promise<boolean> {
  try {
    const headers = { ...browser, cookie: c.cookie };
    if (typing) {
      const page = await call(job.url, 'GET', `/portal/a/${slug}?q=5`, headers);
      if (page.status !== 200) return (void fail('typing page', page), false);
      const start = await call(job.url, 'POST', `/portal/api/a/${slug}/typing/start`, { ...headers, 'x-csrf-token': c.csrf, 'content-type': 'application/json' }, '{}');
      if (start.status !== 204) return (void fail('typing start', start), false);
      // About 20 s of typing at a human pace, as the page reports it.
      await new Promise((r) => setTimeout(r, 5000 + Math.random() * 2000));
      const intervals = Array.from({ length: PASSAGE.length - 1 }, () => Math.round(120 + Math.random() * 160));
      const typed = await call(
        job.url,
        'POST',
        `/portal/api/a/${slug}/typing`,
        { ...headers, 'x-csrf-token': c.csrf, 'content-type': 'application/json' },
        JSON.stringify({ typed: PASSAGE, intervals }),
      );
      if (typed.status !== 200) return (void fail('typing', typed), false);
    }
    const sentAt = performance.now();
    const submitted = await call(
      job.url,
      'POST',
      `/portal/a/${slug}/submit`,
      { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
      `_csrf=${encodeURIComponent(c.csrf)}`,
    );
    if (submitted.status !== 303) return (void fail('submit', submitted), false);
    onSubmitted?.(performance.now() - sentAt);
    const done = await call(job.url, 'GET', `/portal/a/${slug}`, headers);
    if (done.status !== 200) return (void fail('completed page', done), false);
    return true;
  } catch (error) {
    fail('finish', error as Error);
    return false;
  }
}

/** `submits`: candidate i answers every question of its answer set on the service (as portal.js saves) and the same on the baseline. */
async function answer(c: Candidate): Promise<boolean> {
  for (const [question, value] of Object.entries(job.answerSets![c.i % job.answerSets!.length]!)) {
    const body = JSON.stringify({ value });
    try {
      const saved = await call(
        job.url,
        'PUT',
        `/portal/api/a/${slug}/answers/${question}`,
        { ...browser, cookie: c.cookie, 'x-csrf-token': c.csrf, 'content-type': 'application/json' },
        body,
      );
      if (saved.status !== 204) return (void fail('answer', saved), false);
      const copied = await call(job.baselineUrl!, 'PUT', `/answer/${c.candidateId}/${job.assessmentId}/${question}`, { 'content-type': 'application/json' }, body);
      if (copied.status !== 204) return (void fail('answer on the baseline', copied), false);
    } catch (error) {
      return (void fail('answer', error as Error), false);
    }
  }
  return true;
}

export interface SubmitFigures {
  submits: number;
  failed: number;
  /** Submissions answered a second, from the first sent to the last answered. */
  perSecond: number;
  p50: number;
  p99: number;
  max: number;
  /** Date.now() when the first submission was sent and when the last was answered. */
  firstAt: number;
  lastAt: number;
  cpuUsPerSubmit: number;
  /** Scores read as ready, and Date.now() when the last of them was first read so. */
  scores: number;
  lastScoreAt: number;
  /** PostgreSQL's side of the phase, per submission (PostgreSQL only). */
  pg?: PgFigures;
}

/**
 * Date.now() when the candidate's score is first read as ready, read at once after its submission
 * and again every 100 ms (for up to job.waitSeconds): on the service GET /v1/score for the candidate
 * and assessment giving the record COMPLETED with a score status other than PENDING, on the
 * baseline GET /score/{candidate}/{assessment} answering 200. Undefined when it never is.
 */
async function scoreReadyAt(c: Candidate, target: 'service' | 'baseline'): Promise<number | undefined> {
  const until = Date.now() + (job.waitSeconds ?? 120) * 1000;
  while (Date.now() < until) {
    try {
      if (target === 'service') {
        const read = await call(job.url, 'GET', `/v1/score?candidateIds=${c.candidateId}&assessmentIds=${slug}`, { 'x-api-key': job.key, instance: 'bench' });
        const record = read.status === 200 ? (JSON.parse(read.body) as { assessmentStatus: string; scoreStatus: string }[])[0] : undefined;
        if (record?.assessmentStatus === 'COMPLETED' && record.scoreStatus !== 'PENDING') return Date.now();
      } else if ((await call(job.baselineUrl!, 'GET', `/score/${c.candidateId}/${job.assessmentId}`, {})).status === 200) return Date.now();
    } catch (error) {
      fail(`score read on ${target}`, error as Error);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return undefined;
}

/**
 * `submits`: every candidate submits once on one side, the submissions spread evenly over
 * job.seconds: on the service as the browser does (the form post, 303, then the page it leads
 * to), on the baseline POST /submit/{candidate}/{assessment} (204). Latency is the submission's
 * request alone, from sending it. Then each candidate's score is read until ready (scoreReadyAt).
 * The node's CPU, and on PostgreSQL its backends' (pg-phase.ts), are over the whole phase, those
 * reads and the service's background work (its webhook worker's deliveries) included.
 */
async function submitPhase(candidates: Candidate[], target: 'service' | 'baseline'): Promise<SubmitFigures> {
  const latencies: number[] = [];
  const readyAt: number[] = [];
  let lastAt = 0;
  const pid = target === 'service' ? job.servicePid : job.baselinePid;
  const pgSide = job.databaseUrl ? await pgPhase(job.databaseUrl, target === 'service' ? 'assessment-connect' : 'bench-save-baseline') : undefined;
  const cpuBefore = cpuOf(pid);
  const firstAt = Date.now();
  const submitted = async (c: Candidate): Promise<boolean> => {
    const done = (ms: number) => {
      latencies.push(ms);
      lastAt = Math.max(lastAt, Date.now());
    };
    if (target === 'service') return finish(c, false, done);
    const sentAt = performance.now();
    try {
      const answer = await call(job.baselineUrl!, 'POST', `/submit/${c.candidateId}/${job.assessmentId}`, {});
      if (answer.status !== 204) return (void fail('submit on the baseline', answer), false);
      done(performance.now() - sentAt);
      return true;
    } catch (error) {
      return (void fail('submit on the baseline', error as Error), false);
    }
  };
  const results = await Promise.all(
    candidates.map(async (c, k) => {
      await new Promise((r) => setTimeout(r, (k / candidates.length) * job.seconds * 1000));
      if (!(await submitted(c))) return false;
      const at = await scoreReadyAt(c, target);
      if (at !== undefined) readyAt.push(at);
      return true;
    }),
  );
  const cpuOfSubmits = cpuOf(pid) - cpuBefore;
  const sorted = latencies.sort((a, b) => a - b);
  return {
    submits: sorted.length,
    failed: results.filter((ok) => !ok).length,
    perSecond: round(sorted.length / Math.max(0.001, (lastAt - firstAt) / 1000)),
    p50: round(percentile(sorted, 50)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted[sorted.length - 1] ?? 0),
    firstAt,
    lastAt,
    cpuUsPerSubmit: round(cpuOfSubmits / Math.max(1, sorted.length)),
    scores: readyAt.length,
    lastScoreAt: Math.max(...readyAt),
    pg: await pgSide?.end(sorted.length),
  };
}

const setupBegan = performance.now();
const set = await pool(job.n, job.setupConcurrency ?? 32, setUp);
const candidates = set.filter((c): c is Candidate => c !== undefined);
const setup = { candidates: candidates.length, failed: job.n - candidates.length, seconds: round((performance.now() - setupBegan) / 1000) };

if (job.mode === 'submits') {
  // Set up and answered, then one phase per line read from stdin (`service` or `baseline`), each
  // answered with one JSON line, so that the bench can wait for a side's scores and webhooks
  // before the next side begins; `end` (or the end of stdin) ends the driver.
  const answered = (await pool(candidates.length, job.setupConcurrency ?? 32, (k) => answer(candidates[k]!))).filter(Boolean).length;
  process.stdout.write(JSON.stringify({ setup, answered, failures }) + '\n');
  for await (const line of createInterface({ input: process.stdin })) {
    if (line !== 'service' && line !== 'baseline') break;
    const figures = await submitPhase(candidates, line);
    process.stdout.write(JSON.stringify({ side: line, figures, failures }) + '\n');
  }
} else if (job.mode === 'saves') {
  // A warm-up of each side first (2 s, not counted: the nodes' JIT, the pools' connections, the
  // rows in PostgreSQL's buffers), so that the first round is not an outlier. Rounds then alternate
  // which side goes first, so that neither always meets a warmer database.
  if (candidates.length > 0) {
    await closedPhase(candidates, 'service', 2);
    await closedPhase(candidates, 'baseline', 2);
  }
  const service: ClosedFigures[] = [];
  const baseline: ClosedFigures[] = [];
  for (let r = 0; r < (job.rounds ?? 3) && candidates.length > 0; r++) {
    if (r % 2 === 0) {
      service.push(await closedPhase(candidates, 'service'));
      baseline.push(await closedPhase(candidates, 'baseline'));
    } else {
      baseline.push(await closedPhase(candidates, 'baseline'));
      service.push(await closedPhase(candidates, 'service'));
    }
  }
  process.stdout.write(JSON.stringify({ setup, service, baseline, failures }) + '\n');
} else if (job.mode === 'campaign') {
  const service = candidates.length > 0 ? await savePhase(candidates, 'service') : undefined;
  const baseline = job.baselineUrl && candidates.length > 0 ? await savePhase(candidates, 'baseline') : undefined;
  const finishBegan = performance.now();
  // Candidates finish at different moments, not all in the same instant: spread over
  // max(10 s, 20 ms per candidate), i.e. at most 50 candidates finishing a second.
  const spreadMs = Math.max(10_000, candidates.length * 20);
  const finished = await Promise.all(
    candidates.map(async (c) => {
      await new Promise((r) => setTimeout(r, Math.random() * spreadMs));
      return finish(c, job.typing ?? true);
    }),
  );
  const completed = finished.filter(Boolean).length;
  process.stdout.write(
    JSON.stringify({ setup, service, baseline, finish: { completed, failed: candidates.length - completed, seconds: round((performance.now() - finishBegan) / 1000) }, failures }) +
      '\n',
  );
} else {
  // The submissions, spread evenly over job.seconds.
  const began = performance.now();
  const submitted: number[] = [];
  const results = await Promise.all(
    candidates.map(async (c, k) => {
      await new Promise((r) => setTimeout(r, (k / candidates.length) * job.seconds * 1000));
      const ok = await finish(c, false);
      if (ok) submitted.push(Date.now());
      return ok;
    }),
  );
  const completed = results.filter(Boolean).length;
  process.stdout.write(
    JSON.stringify({
      setup,
      complete: {
        completed,
        failed: candidates.length - completed,
        seconds: round((performance.now() - began) / 1000),
        firstAt: Math.min(...submitted),
        lastAt: Math.max(...submitted),
      },
      failures,
    }) + '\n',
  );
}
agent.destroy();
