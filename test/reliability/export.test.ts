// The full export of 1,000,000 records (GET /v1/score with no filter) from a real server process
// on PostgreSQL: every record arrives once and parses, and the server's resident memory grows by
// less than 100 MB over the whole export, for a client that reads as fast as it can and for one
// that stops reading for a while in the middle (the cursor must wait for the client, not buffer
// the rest of the table). Memory is sampled from /proc/<pid>/status (VmRSS) every 50 ms.
// Speed (first byte, MB/s against psql \copy) is measured by `npm run bench`, not here.
import assert from 'node:assert/strict';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { publish, seedRows } from '../../bench/seed.js';
import { freshPostgresDatabase } from '../harness.js';
import { admin, figure, rssMb, startNode, type Node } from './support/server.js';

/** 333,300 candidates × 3 invitations + 100 on the fourth assessment = 1,000,000 records. */
const CANDIDATES = 333_300;
const RECORDS = CANDIDATES * 3 + 100;
const BOUND_MB = 100;

interface Read {
  status: number;
  contentType: string;
  records: number;
  completed: number;
  pairs: number;
  bytes: number;
  seconds: number;
  peakGrowthMb: number;
  /** RSS growth when a tenth, half and all of the bytes had arrived. */
  growthAt: string;
}

/**
 * Reads the export over a raw HTTP connection and splits the JSON array into its records as the
 * bytes arrive (depth and string state carried across chunks), parsing each one. `pauseAfterBytes`
 * stops reading for `pauseMs` once that many bytes have arrived.
 */
function readExport(node: Node, key: string, pauseAfterBytes = Infinity, pauseMs = 0): Promise<Read> {
  const pid = node.child.pid!;
  const before = rssMb(pid);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(pid))), 50);
  const began = performance.now();
  return new Promise<Read>((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port: node.port, path: '/v1/score', headers: { 'x-api-key': key, instance: 'bench' } }, (response: IncomingMessage) => {
      response.setEncoding('utf8');
      let bytes = 0;
      let records = 0;
      let completed = 0;
      const pairs = new Set<string>();
      let depth = 0;
      let inString = false;
      let escaped = false;
      let opened = false;
      let closed = false;
      let current = '';
      let paused = false;
      const marks: number[] = [];
      const total = Number(response.headers['content-length'] ?? 0);
      response.on('data', (text: string) => {
        bytes += Buffer.byteLength(text);
        let start = depth > 1 ? 0 : -1;
        for (let i = 0; i < text.length; i++) {
          const c = text.charCodeAt(i);
          if (inString) {
            if (escaped) escaped = false;
            else if (c === 0x5c) escaped = true;
            else if (c === 0x22) inString = false;
            continue;
          }
          if (c === 0x22) inString = true;
          else if (c === 0x5b /* [ */ && depth === 0) {
            if (opened) throw new Error('a second top-level array');
            opened = true;
            depth = 1;
          } else if (c === 0x5d /* ] */ && depth === 1) {
            depth = 0;
            closed = true;
          } else if (c === 0x7b || c === 0x5b) {
            if (depth === 1) start = i;
            depth++;
          } else if (c === 0x7d || c === 0x5d) {
            depth--;
            if (depth === 1) {
              const record = JSON.parse(current + text.slice(start, i + 1)) as { candidateId: string; assessmentId: string; assessmentStatus: string };
              current = '';
              start = -1;
              records++;
              if (record.assessmentStatus === 'COMPLETED') completed++;
              pairs.add(`${record.candidateId} ${record.assessmentId}`);
            }
          }
        }
        if (depth > 1) current += text.slice(Math.max(0, start));
        if (marks.length === 0 && records >= RECORDS / 10) marks.push(peak - before);
        if (marks.length === 1 && records >= RECORDS / 2) marks.push(peak - before);
        if (!paused && bytes >= pauseAfterBytes) {
          paused = true;
          response.pause();
          setTimeout(() => response.resume(), pauseMs);
        }
      });
      response.on('end', () => {
        clearInterval(sampler);
        peak = Math.max(peak, rssMb(pid));
        marks.push(peak - before);
        if (!closed) return reject(new Error(`the array was not closed after ${records} records`));
        if (total && total !== bytes) return reject(new Error(`content-length ${total}, received ${bytes}`));
        resolve({
          status: response.statusCode!,
          contentType: String(response.headers['content-type']),
          records,
          completed,
          pairs: pairs.size,
          bytes,
          seconds: (performance.now() - began) / 1000,
          peakGrowthMb: peak - before,
          growthAt: marks.map((m) => m.toFixed(0)).join(' / '),
        });
      });
      response.on('error', reject);
    });
    request.on('error', (error) => {
      clearInterval(sampler);
      reject(error);
    });
    request.end();
  });
}

describe(`the full export of ${RECORDS.toLocaleString('en')} records from a server process`, () => {
  let database: { url: string; drop(): Promise<void> };
  let node: Node;
  let key: string;
  let completedInDatabase: number;

  before(async () => {
    database = await freshPostgresDatabase();
    const seeding = await startNode(database.url);
    await publish(seeding);
    await seeding.stop();
    const began = Date.now();
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      await seedRows(db, CANDIDATES);
      const counted = await db.query<{ all: string; completed: string }>(
        `SELECT count(*) AS all, count(*) FILTER (WHERE assessment_status = 'COMPLETED') AS completed FROM invitations`,
      );
      assert.equal(Number(counted.rows[0]!.all), RECORDS);
      completedInDatabase = Number(counted.rows[0]!.completed);
    } finally {
      await db.end();
    }
    figure(`export: seeded ${RECORDS.toLocaleString('en')} invitations in ${Math.round((Date.now() - began) / 1000)} s`);
    node = await startNode(database.url, { LOG_LEVEL: 'warn' });
    // Rows seeded in SQL have no ready score record yet: the node's score-records job fills them
    // (as after an upgrade); the export is measured in the steady state, from the read model.
    const filling = Date.now();
    const watch = new pg.Client({ connectionString: database.url });
    await watch.connect();
    try {
      while (Number((await watch.query<{ n: string }>('SELECT count(*) AS n FROM invitations WHERE record IS NULL')).rows[0]!.n) > 0) {
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    } finally {
      await watch.end();
    }
    figure(`export: the node filled ${RECORDS.toLocaleString('en')} score records in ${Math.round((Date.now() - filling) / 1000)} s`);
    key = ((await admin(node, 'POST', '/keys', { instances: ['bench'] })).json as { key: string }).key;
    // Warm the route (code paths, the key cache, the pool) with one small page first: the bound is
    // on what the export's size costs, not on the first request the process ever answers.
    const warm = await fetch(`${node.url}/v1/score?limit=1000`, { headers: { 'x-api-key': key, instance: 'bench' } });
    assert.equal(warm.status, 200);
    await warm.arrayBuffer();
  });
  after(async () => {
    await node?.stop('SIGKILL');
    await database?.drop();
  });

  it(`streams every record once while the server grows by less than ${BOUND_MB} MB`, async () => {
    const read = await readExport(node, key);
    figure(
      `export: ${read.records.toLocaleString('en')} records, ${(read.bytes / 1e6).toFixed(0)} MB in ${read.seconds.toFixed(1)} s (client parsing every record); server RSS growth at 10% / 50% / 100%: ${read.growthAt} MB (bound ${BOUND_MB} MB)`,
    );
    assert.equal(read.status, 200);
    assert.match(read.contentType, /^application\/json/);
    assert.equal(read.records, RECORDS);
    assert.equal(read.pairs, RECORDS, 'each (candidate, assessment) once');
    assert.equal(read.completed, completedInDatabase, 'as many COMPLETED records as the database holds');
    assert.ok(read.peakGrowthMb < BOUND_MB, `server RSS grew by ${read.peakGrowthMb.toFixed(0)} MB`);
  });

  it('waits for a client that stops reading, without buffering the rest of the table', async () => {
    const read = await readExport(node, key, 50e6, 5000);
    figure(`export with a reader that stops for 5 s after 50 MB: ${read.records.toLocaleString('en')} records; server RSS growth at 10% / 50% / 100%: ${read.growthAt} MB`);
    assert.equal(read.records, RECORDS);
    assert.ok(read.peakGrowthMb < BOUND_MB, `server RSS grew by ${read.peakGrowthMb.toFixed(0)} MB`);
  });
});
