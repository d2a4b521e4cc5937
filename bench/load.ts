// The load generator, in a process of its own so that it never shares an event loop or a core's
// time slice accounting with the server it measures. Reads one scenario as JSON from argv[2],
// runs autocannon and prints its figures as one JSON line.
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
}

const scenario = JSON.parse(process.argv[2]!) as Scenario;
const ids: string[] = scenario.idsFile ? JSON.parse(readFileSync(scenario.idsFile, 'utf8')) : [];
let n = 0;

const result = await autocannon({
  url: scenario.url,
  connections: scenario.connections,
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
});
process.stdout.write(
  JSON.stringify({
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
  }) + '\n',
);
