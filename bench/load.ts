// The load generator, in a process of its own so that it never shares an event loop or a core's
// time slice accounting with the server it measures. Reads one scenario as JSON from argv[2],
// runs autocannon and prints its figures as one JSON line. Latencies are kept to the microsecond
// here (autocannon's own histogram counts whole milliseconds, which made a p99 of 1.2 ms against
// 0.9 ms read as 2 against 1): p50 and p99 are of the 2xx answers, in ms to two decimals.
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

interface Scenario {
  url: string;
  path: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** GET: appended to path with a random id from this JSON file per request. */
  idsFile?: string;
  /** POST: an invite body with a unique e-mail per request, to these assessments. */
  invite?: string[];
  seconds: number;
  connections: number;
  /** Requests a second across all connections (open loop); unset, each connection sends its next request when answered. */
  rate?: number;
}

const scenario = JSON.parse(process.argv[2]!) as Scenario;
const ids: string[] = scenario.idsFile ? JSON.parse(readFileSync(scenario.idsFile, 'utf8')) : [];
let n = 0;

/** Each 2xx answer's time in ms, as autocannon measured it (process.hrtime). */
const latencies: number[] = [];
const percentile = (sorted: number[], p: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!);
const result = await new Promise<autocannon.Result>((resolve, reject) => {
  const instance = autocannon(
    {
      url: scenario.url,
      connections: scenario.connections,
      ...(scenario.rate ? { overallRate: scenario.rate } : {}),
      duration: scenario.seconds,
      requests: [
        {
          method: scenario.method ?? 'GET',
          path: scenario.path,
          headers: { ...(scenario.invite ? { 'content-type': 'application/json' } : {}), ...scenario.headers },
          setupRequest: (request) => {
            if (ids.length > 0) return { ...request, path: `${scenario.path}${ids[Math.floor(Math.random() * ids.length)]}` };
            if (scenario.invite) {
              const email = `bench-${process.pid}-${Date.now()}-${n++}@load.example`;
              return { ...request, body: JSON.stringify({ email, firstName: 'Bench', lastName: 'Mark', assessments: scenario.invite }) };
            }
            return request;
          },
        },
      ],
    },
    (error, result) => (error ? reject(error) : resolve(result)),
  );
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime);
  });
});
latencies.sort((a, b) => a - b);
const ms = (value: number) => Math.round(value * 100) / 100;
process.stdout.write(
  JSON.stringify({
    rps: result.requests.average,
    p50: ms(percentile(latencies, 50)),
    p99: ms(percentile(latencies, 99)),
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  }) + '\n',
);
