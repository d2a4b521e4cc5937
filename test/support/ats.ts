// What the suites of the ATS adapters share: a stand-in for an ATS's side on loopback (it records
// every request and answers what the test's routes say, in the ATS's documented shapes), and the
// sign-in link a candidate got by e-mail.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';

export interface Received {
  method: string;
  /** The path and query. */
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** An answer of the stand-in: a status and a JSON body (or none), or `hang` to never answer (a timeout). */
export type Answer = { status: number; json?: unknown } | 'hang';
export type Route = (request: Received) => Answer | undefined;

export interface StandIn {
  base: string;
  received: Received[];
  /** Routes asked in order; the first that answers wins; otherwise 404. */
  routes: Route[];
  /** Answers every request with `answer` until cleared (null): an ATS that is down. */
  failWith(answer: Answer | null): void;
  close(): Promise<void>;
}

export async function standIn(): Promise<StandIn> {
  let failing: Answer | null = null;
  const stand: Omit<StandIn, 'base' | 'close'> = { received: [], routes: [], failWith: (answer) => (failing = answer) };
  const hanging: ServerResponse[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const received: Received = { method: request.method!, url: request.url!, headers: request.headers as Record<string, string>, body };
      stand.received.push(received);
      const answer = failing ?? stand.routes.map((route) => route(received)).find((a) => a !== undefined) ?? { status: 404, json: { error: 'not found' } };
      if (answer === 'hang') return void hanging.push(response);
      if (answer.json === undefined) return void response.writeHead(answer.status).end();
      response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.json));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    ...stand,
    base: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const r of hanging) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The requests a stand-in received at `pathname` (the query left out). */
export const receivedAt = (stand: StandIn, pathname: string, method?: string): Received[] =>
  stand.received.filter((r) => r.url.split('?')[0] === pathname && (method === undefined || r.method === method));

/** The portal link of the last invitation e-mail to `address` under `mailDir` (quoted-printable undone). */
export function linkMailedTo(mailDir: string, address: string): string {
  const messages = readdirSync(mailDir)
    .filter((name) => name.endsWith('.eml'))
    .sort()
    .map((name) =>
      readFileSync(path.join(mailDir, name), 'utf8')
        .replace(/=\r?\n/g, '')
        .replace(/=3D/gi, '='),
    )
    .filter((text) => text.includes(address));
  assert.ok(messages.length > 0, `nothing was e-mailed to ${address}`);
  const found = /https?:\/\/[^\s"<>]+#\?sessionToken=[A-Za-z0-9_-]+/.exec(messages.at(-1)!);
  assert.ok(found, `no sign-in link in the e-mail to ${address}`);
  return found[0];
}

/** The right answers of the harness's QUICK_ASSESSMENT (scored at submission, nothing to review). */
export const QUICK_ANSWERS: [string, unknown][] = [['q1', 1]];
