// Submissions at the end of a campaign (`npm run bench -- --submits`): on a fresh PostgreSQL
// database (or, `--submits-pglite`, each side on its own PGlite), the service started as
// `npm start` starts it (bench/fresh.ts startService) with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true (its
// outbound webhooks to loopback are refused otherwise), and the bare baseline of
// bench/save-baseline.ts. The assessment `final` (three questions scored at once: a single choice,
// a multiple choice, a short answer; no free text, no typing test) is published through the admin
// API, a local receiver is registered for score.finalized through the admin API, and N candidates
// (default 1,000) are invited through POST /v1/invite and started through the portal as a browser
// does (the campaign driver, bench/campaign.ts), each answering the three questions through the
// portal's API and the same values on the baseline. Then each side in turn: every candidate
// submits once, the submissions spread evenly over `seconds` (default 60), and its score is read
// as soon as the submission is answered and every 100 ms until ready (the service's GET /v1/score
// for the candidate, the baseline's GET /score/…), while the receiver takes the side's webhooks.
// Measured from the first submission
// sent: the last score readable as completed with its score, the last score.finalized webhook
// received; and the submissions' p50/p99, failures, submissions a second, the CPU of each node.
import { execFileSync, spawn } from 'node:child_process';
import { createServer, type IncomingMessage } from 'node:http';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { admin, freePort, type Node } from '../test/reliability/support/server.js';
import { SAVE_BASELINE_ASSESSMENT, withSides } from './saves.js';
import { publishAssessment } from './seed.js';
import { sampleAssessment } from '../test/harness.js';
import type { SubmitFigures } from './campaign.js';

const ROOT = path.resolve(import.meta.dirname, '..');

/** Three questions the service scores at submission (the sample's without its free text), so that each completion is finalized at once. */
const FINAL_ASSESSMENT = sampleAssessment('final', { name: 'End of campaign', durationMinutes: 30, freeText: false });

/** The baseline's answer key: the correct value of each question, as the portal's API sends it. */
const ANSWER_KEY = { q1: 1, q2: [0, 2], q3: '1250' };
/** What the candidates answer (candidate i the set i mod 4): 3, 2, 1 and 2 correct. */
const ANSWER_SETS = [ANSWER_KEY, { ...ANSWER_KEY, q1: 0 }, { q1: 1, q2: [0], q3: '125' }, { ...ANSWER_KEY, q3: '125' }];

export interface SubmitsOptions {
  baseUrl: string;
  pglite: boolean;
  candidates: number;
  /** The submissions are spread over this many seconds. */
  seconds: number;
  /** Seconds to wait, after the last submission, for the last score and webhook. */
  waitSeconds: number;
}

interface SideFigures extends SubmitFigures {
  webhooks: number;
  duplicates: number;
  /** Date.now() when the last webhook arrived. */
  lastWebhookAt: number;
}

/** The campaign driver in `submits` mode, answering one phase per line written to it. */
function driver(job: Record<string, unknown>) {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bench', 'campaign.ts'), JSON.stringify(job)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  return {
    async next<T>(): Promise<T> {
      const line = await lines.next();
      if (line.done) throw new Error(`the submits driver exited ${await exited}`);
      return JSON.parse(line.value) as T;
    },
    send: (line: string) => child.stdin.write(`${line}\n`),
    end: async () => {
      child.stdin.end('end\n');
      await exited;
    },
  };
}

/** A local webhook receiver on a free port of 127.0.0.1: each POST's body, whole, with Date.now() at its end; answers 204. */
export async function startReceiver(onPost: (request: IncomingMessage, body: string, at: number) => void): Promise<{ port: number; close(): void }> {
  const server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      onPost(request, body, Date.now());
      response.writeHead(204).end();
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return { port, close: () => server.close() };
}

const r1 = (n: number) => Math.round(n * 10) / 10;
const r2 = (n: number) => Math.round(n * 100) / 100;
const uptime = () => execFileSync('uptime', { encoding: 'utf8' }).trim();

export async function submitsScenario(o: SubmitsOptions): Promise<{ text: string; failures: string[] }> {
  // The receiver: each side posts to its own path; the first arrival per candidate is kept.
  const arrivals = { service: new Map<string, number>(), baseline: new Map<string, number>() };
  const duplicates = { service: 0, baseline: 0 };
  const receiver = await startReceiver((request, body, at) => {
    const side = request.url === '/service' ? 'service' : 'baseline';
    const event = JSON.parse(body) as { type: string; data: { candidateId: string } };
    if (event.type !== 'score.finalized') return;
    if (arrivals[side].has(event.data.candidateId)) duplicates[side]++;
    else arrivals[side].set(event.data.candidateId, at);
  });
  const port = receiver.port;
  const loadBefore = uptime();
  try {
    return await withSides(
      {
        baseUrl: o.baseUrl,
        pglite: o.pglite,
        prefix: 'bench_submits',
        serviceEnv: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' },
        baselineEnv: { WEBHOOK_URL: `http://127.0.0.1:${port}/baseline`, ANSWER_KEY: JSON.stringify({ [SAVE_BASELINE_ASSESSMENT]: ANSWER_KEY }) },
      },
      async ({ service, baseline, key, databaseUrl }) => {
        const node = { url: service.url } as Node;
        await publishAssessment(node, FINAL_ASSESSMENT);
        const made = await admin(node, 'POST', '/instances/bench/webhooks', { url: `http://127.0.0.1:${port}/service`, events: ['score.finalized'], description: 'bench submits' });
        if (made.status !== 201) throw new Error(`could not register the webhook endpoint: ${JSON.stringify(made.json)}`);

        const drive = driver({
          mode: 'submits',
          assessment: 'final',
          url: service.url,
          baselineUrl: baseline.url,
          key,
          n: o.candidates,
          seconds: o.seconds,
          servicePid: service.pid,
          baselinePid: baseline.pid,
          assessmentId: SAVE_BASELINE_ASSESSMENT,
          answerSets: ANSWER_SETS,
          waitSeconds: o.waitSeconds,
          databaseUrl,
        });
        const failures: string[] = [];
        try {
          const set = await drive.next<{ setup: { candidates: number; failed: number; seconds: number }; answered: number; failures: string[] }>();
          console.log(`# submits: ${set.setup.candidates} candidates started in ${set.setup.seconds} s (${set.setup.failed} failed), ${set.answered} answered`);
          const n = set.answered;
          const sides: Partial<Record<'service' | 'baseline', SideFigures>> = {};
          for (const side of ['service', 'baseline'] as const) {
            drive.send(side);
            const done = await drive.next<{ figures: SubmitFigures; failures: string[] }>();
            failures.push(...done.failures.filter((f) => !failures.includes(f)));
            // The webhooks still on their way, awaited up to waitSeconds after the last submission.
            while (arrivals[side].size < n && Date.now() < done.figures.lastAt + o.waitSeconds * 1000) await new Promise((r) => setTimeout(r, 100));
            sides[side] = { ...done.figures, webhooks: arrivals[side].size, duplicates: duplicates[side], lastWebhookAt: Math.max(...arrivals[side].values()) };
            const f = sides[side];
            console.log(
              `# submits on the ${side}: ${f.submits} answered (${f.failed} failed), p50 ${f.p50} ms, p99 ${f.p99} ms; last score after ${r1((f.lastScoreAt - f.firstAt) / 1000)} s, last webhook after ${r1((f.lastWebhookAt - f.firstAt) / 1000)} s (${f.scores} scores, ${f.webhooks} webhooks)`,
            );
            if (f.failed > 0) failures.push(`${side}: ${f.failed} submissions failed`);
            if (f.scores < n) failures.push(`${side}: ${n - f.scores} scores not ready within ${o.waitSeconds} s of their submission`);
            if (f.webhooks < n) failures.push(`${side}: ${n - f.webhooks} webhooks not received within ${o.waitSeconds} s of the last submission`);
          }
          return { text: report(o, set.setup, n, sides.service!, sides.baseline!, loadBefore), failures };
        } finally {
          await drive.end();
        }
      },
    );
  } finally {
    receiver.close();
  }
}

function report(o: SubmitsOptions, setup: { candidates: number; seconds: number }, n: number, s: SideFigures, b: SideFigures, loadBefore: string): string {
  const seconds = (at: number, f: SideFigures) => r1((at - f.firstAt) / 1000);
  const row = (name: string, f: SideFigures) =>
    `| ${name} | ${f.submits} | ${f.failed} | ${f.perSecond} | ${f.p50} / ${f.p99} / ${f.max} | ${seconds(f.lastScoreAt, f)} (+${r2((f.lastScoreAt - f.lastAt) / 1000)}) | ${seconds(f.lastWebhookAt, f)} (+${r2((f.lastWebhookAt - f.lastAt) / 1000)}) | ${f.scores} / ${f.webhooks} (${f.duplicates} dup.) | ${f.cpuUsPerSubmit} | ${f.pg?.cpuUsPerSave ?? 'in node'} | ${f.pg?.commitsPerSave ?? '–'} | ${f.pg?.walBytesPerSave ?? '–'} |`;
  const ratio = (a: number, c: number) => r2(a / Math.max(1, c));
  const store = o.pglite ? 'PGlite (each side its own, in its node)' : 'PostgreSQL (one database, each side its own tables)';
  return [
    `Submissions at the end of a campaign on ${store}: ${n.toLocaleString('en')} candidates invited through POST /v1/invite, started through the portal as the browser does (the link's token for a session cookie, the list, the intro page, start) and each answering the three questions of \`final\` (single choice, multiple choice, short answer; scored at submission) through PUT /portal/api/a/final/answers/{q} (setup ${setup.seconds} s); the same answers copied to the baseline's table. Then each side in turn, the ${n.toLocaleString('en')} submissions spread evenly over ${o.seconds} s.`,
    '',
    `- service: the browser's form post POST /portal/a/final/submit (session cookie, CSRF token; 303), then GET of the page it leads to; the service completes the attempt and scores it in the submission's transaction, which also writes the score.finalized event to its outbox; its webhook worker delivers it (signed) to the receiver, registered through the admin API (POST /admin/v1/instances/bench/webhooks); WEBHOOK_ALLOW_PRIVATE_NETWORKS=true was set on the service so that it may post to 127.0.0.1. Ready = GET /v1/score?candidateIds={candidate}&assessmentIds=final gives the record as COMPLETED with a score status other than PENDING.`,
    `- baseline (bench/save-baseline.ts, Fastify without logging, pg pool of 10): POST /submit/{candidate}/{assessment} runs one INSERT … SELECT that counts the candidate's stored answers equal to its answer key (bench_save_answers ⋈ bench_answer_key) and writes the score row (bench_scores), answers 204 once committed, and then, not awaited, POSTs one unsigned JSON webhook with fetch to the same receiver (no outbox, no retry). Ready = its GET /score/{candidate}/{assessment} answers 200 with the row.`,
    '',
    `Each candidate's score was read as soon as its submission was answered, and again every 100 ms until ready, on both sides; times are from the first submission sent, in brackets after the last submission answered. Node CPU is the side's node over the phase (submissions, the page after, the score reads) per submission.`,
    '',
    '| side | submits | failed | submits/s | submit p50 / p99 / max ms | last score ready s | last webhook received s | scores / webhooks | node CPU µs/submit | PostgreSQL CPU µs/submit | commits/submit | WAL bytes/submit |',
    '| --- | ---: | ---: | ---: | --- | --- | --- | --- | ---: | ---: | ---: | ---: |',
    row('service', s),
    row('bare baseline', b),
    '',
    `Service/baseline: time to the last score ${ratio(s.lastScoreAt - s.firstAt, b.lastScoreAt - b.firstAt)}×, to the last webhook ${ratio(s.lastWebhookAt - s.firstAt, b.lastWebhookAt - b.firstAt)}×; after the last submission, to the last score ${r2((s.lastScoreAt - s.lastAt) / 1000)} s against ${r2((b.lastScoreAt - b.lastAt) / 1000)} s, to the last webhook ${r2((s.lastWebhookAt - s.lastAt) / 1000)} s against ${r2((b.lastWebhookAt - b.lastAt) / 1000)} s; submit p99 ${ratio(s.p99, b.p99)}×.`,
    '',
    ...(s.pg?.statements
      ? ['Statements per submission, service (pg_stat_statements, the whole phase):', '', ...s.pg.statements.map((st) => `- ${st.calls} × \`${st.query}\``), '']
      : []),
    `Machine load (uptime): before \`${loadBefore}\`; after \`${uptime()}\`.`,
  ].join('\n');
}
