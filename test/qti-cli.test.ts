// The CLI's QTI commands: export an assessment as a QTI 3.0 package and import it into another
// instance (the same content comes back), with the import report; a bad package is refused.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { before, it } from 'node:test';
import { parseAssessment } from '../src/modules/assessments/content.js';
import { assessmentUuid, currentContent } from '../src/modules/assessments/repository.js';
import { describeEachStore } from './harness.js';
import { runCli } from './support/cli.js';

const FIXTURE = path.resolve(import.meta.dirname, 'fixtures', 'qti', 'every-type.yaml');

describeEachStore('CLI: QTI packages', (ctx) => {
  let url: string;
  before(async () => {
    url = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
  });
  const cli = (args: string[]) => runCli(url, args);

  it('exports with --qti and imports the package into another instance: the same content, and the report', async () => {
    const from = await ctx().instance('qti-from');
    const to = await ctx().instance('qti-to');
    const source = readFileSync(FIXTURE, 'utf8');
    assert.equal((await ctx().publish(from, source)).statusCode, 201);
    const dir = mkdtempSync(path.join(tmpdir(), 'qti-cli-'));
    const file = path.join(dir, 'every-type.zip');

    const exported = await cli(['assessment', 'export', 'every-type', '--qti', file, '--instance', from]);
    assert.equal(exported.code, 0, exported.stderr);
    assert.equal(exported.stdout, `Wrote ${file}: every-type as a QTI 3.0 package\n`);
    assert.equal(readFileSync(file).subarray(0, 2).toString('latin1'), 'PK');

    const imported = await cli(['assessment', 'import', '--qti', file, '--instance', to]);
    assert.equal(imported.code, 0, imported.stderr);
    assert.match(imported.stdout, new RegExp(`^Published every-type \\(version 1\\) in ${to} from every-type\\.zip\\nImported 9 items\\n$`));
    const parsed = parseAssessment(source);
    assert.ok(parsed.ok);
    const uuid = await assessmentUuid(ctx().db, (await ctx().db.query<{ id: string }>('SELECT id FROM instances WHERE name = $1', [to])).rows[0]!.id, 'every-type');
    assert.deepEqual(await currentContent(ctx().db, uuid!), parsed.content);

    const json = await cli(['assessment', 'import', '--qti', file, '--instance', to, '--json']);
    assert.equal(json.code, 0, json.stderr);
    assert.equal((JSON.parse(json.stdout) as { report: { imported: unknown[] } }).report.imported.length, 9);

    const bad = path.join(dir, 'bad.zip');
    writeFileSync(bad, 'not a zip');
    const refused = await cli(['assessment', 'import', '--qti', bad, '--instance', to]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /is not a zip file/);
    const usage = await cli(['assessment', 'export', 'every-type', '--instance', from]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /assessment export needs --qti FILE\.zip/);
    const missing = await cli(['assessment', 'export', 'nope', '--qti', path.join(dir, 'x.zip'), '--instance', from]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /404 No such assessment/);
  });
});
