// The hot paths' timing for /metrics: named statements and transactions are observed, failed ones
// too, and everything else passes through unobserved and unchanged.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openMigratedPglite } from '../../test/support/templates.js';
import type { Database } from './database.js';
import { statementTag, timedDatabase } from './timing.js';

describe('statementTag', () => {
  it('reads a leading comment of lower-case letters, digits and _ as the name, and nothing else', () => {
    assert.equal(statementTag('/* score_by_candidate */ SELECT 1'), 'score_by_candidate');
    assert.equal(statementTag('/* a1 */SELECT 1'), 'a1');
    // A second reading answers from what the first found, a name or none.
    assert.equal(statementTag('/* score_by_candidate */ SELECT 1'), 'score_by_candidate');
    for (let pass = 0; pass < 2; pass++) {
      for (const text of [
        'SELECT 1 /* late */',
        ' /* lead */ SELECT 1',
        '/*tight*/ SELECT 1',
        '/* Upper */ SELECT 1',
        '/* two words */ SELECT 1',
        '/* 1st */ SELECT 1',
        '/* */ SELECT 1',
        '/* open',
        `/* ${'x'.repeat(80)} */ SELECT 1`,
        '',
      ]) {
        assert.equal(statementTag(text), undefined, text);
      }
    }
  });
});

describe('timedDatabase', () => {
  let raw: Database;
  let db: Database;
  const seen: [string, number][] = [];
  before(async () => {
    raw = await openMigratedPglite();
    db = timedDatabase(raw, (name, seconds) => seen.push([name, seconds]));
    await raw.query('CREATE TABLE timed_probe (id int PRIMARY KEY)');
  });
  after(() => raw.close());

  it('observes named statements, prepared ones, statements in transactions and sessions, and named transactions', async () => {
    seen.length = 0;
    assert.deepEqual((await db.query('/* plain */ SELECT 1 AS n')).rows, [{ n: 1 }]);
    assert.deepEqual((await db.query('SELECT 2 AS n')).rows, [{ n: 2 }]);
    assert.deepEqual((await db.prepared!('timed-probe-1', '/* ready */ SELECT $1::int AS n', [3])).rows, [{ n: 3 }]);
    assert.equal(
      await db.transaction(async (tx) => {
        await tx.query('/* inside */ INSERT INTO timed_probe VALUES (1)');
        await tx.query('INSERT INTO timed_probe VALUES (2)');
        return 'done';
      }, 'whole'),
      'done',
    );
    await db.transaction(async (tx) => tx.query('/* unnamed_tx */ SELECT 1'));
    await db.session(async (conn) => {
      await conn.query('/* in_session */ SELECT 1');
      await conn.exec('SELECT 1');
    });
    assert.deepEqual(
      seen.map(([name]) => name),
      ['plain', 'ready', 'inside', 'whole', 'unnamed_tx', 'in_session'],
    );
    assert.ok(seen.every(([, seconds]) => seconds >= 0 && seconds < 10));
    assert.deepEqual((await raw.query('SELECT id FROM timed_probe ORDER BY id')).rows, [{ id: 1 }, { id: 2 }]);
  });

  it('observes a failed statement and a rolled-back transaction, and passes their errors on unchanged', async () => {
    seen.length = 0;
    await assert.rejects(db.query('/* broken */ SELECT * FROM no_such_table'), (e: Error & { code?: string }) => e.code === '42P01');
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO timed_probe VALUES (3)');
        await tx.query('/* duplicate */ INSERT INTO timed_probe VALUES (1)');
      }, 'failing'),
      (e: Error & { code?: string }) => e.code === '23505',
    );
    assert.deepEqual(
      seen.map(([name]) => name),
      ['broken', 'duplicate', 'failing'],
    );
    assert.deepEqual((await raw.query('SELECT count(*)::int AS n FROM timed_probe')).rows, [{ n: 2 }], 'rolled back whole');
  });

  it('keeps the store kind and closes the store it wraps', async () => {
    assert.equal(db.kind, raw.kind);
    const own = await openMigratedPglite();
    await timedDatabase(own, () => {}).close();
    await assert.rejects(own.query('SELECT 1'), /closed/);
  });
});
