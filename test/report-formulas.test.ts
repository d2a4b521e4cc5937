// Formulas and the candidate's report. A formula the report's PDF cannot draw (nested too deep, too
// large) is refused where it is published: YAML, MathML in a prompt, a QTI package. One that got
// in before (here: written into a published version) never fails a report: the candidate's page,
// compare, the PDF and the report link answer 200, and the PDF prints the formula as its text,
// with a warning in the log. And the HTML views draw no picture: a prompt of 36 heavy formulas
// leaves /healthz answering while the candidate's page loads, its PDF draws them once (in the
// PDF's thread) and the next PDF takes them as drawn.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { after, it } from 'node:test';
import { strToU8, zipSync } from 'fflate';
import { describeEachStore, sampleAssessment } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';
import { reportPdfOf, takeAssessment } from './support/take.js';

const DEEP_TEX = `${'\\sqrt{'.repeat(30)}x${'}'.repeat(30)}`;
const HUGE_TEX = '\\rule{20000pt}{20000pt}';
const DEEP_MATHML = `<math display="block">${'<msqrt>'.repeat(30)}<mi>x</mi>${'</msqrt>'.repeat(30)}</math>`;

/** The sample assessment with q1's prompt replaced (YAML-quoted). */
const withPrompt = (id: string, prompt: string) => sampleAssessment(id).replace('prompt: What is 2 + 2?', () => `prompt: ${JSON.stringify(prompt)}`);

const qtiPackage = (body: string) => {
  const item = `<?xml version="1.0"?><qti-assessment-item xmlns="http://www.imsglobal.org/xsd/imsqtiasi_v3p0" identifier="i" title="i" adaptive="false" time-dependent="false">
<qti-response-declaration identifier="RESPONSE" cardinality="single" base-type="identifier"><qti-correct-response><qti-value>A</qti-value></qti-correct-response></qti-response-declaration>
<qti-item-body>${body}<qti-choice-interaction response-identifier="RESPONSE" max-choices="1"><qti-simple-choice identifier="A">Yes</qti-simple-choice><qti-simple-choice identifier="B">No</qti-simple-choice></qti-choice-interaction></qti-item-body></qti-assessment-item>`;
  const manifest = `<?xml version="1.0"?><manifest xmlns="http://www.imsglobal.org/xsd/qti/qtiv3p0/imscp_v1p1" identifier="m"><organizations/><resources><resource identifier="r" type="imsqti_item_xmlv3p0" href="items/i.xml"><file href="items/i.xml"/></resource></resources></manifest>`;
  return Buffer.from(zipSync({ 'imsmanifest.xml': strToU8(manifest), 'items/i.xml': strToU8(item) })).toString('base64');
};

const work = mkdtempSync(path.join(tmpdir(), 'ac-report-formulas-'));
after(() => rmSync(work, { recursive: true, force: true }));
const log = new PassThrough();
let logged = '';
log.on('data', (chunk) => (logged += chunk));

describeEachStore(
  'formulas and the report',
  (ctx) => {
    it('refuses at publish a formula the PDF cannot draw, naming it: YAML, MathML and a QTI package', async () => {
      const instance = await ctx().instance('formula-refused');
      for (const [prompt, words] of [
        [`Solve $$${DEEP_TEX}$$`, /has the formula \$\\sqrt\{\\sqrt\{.*\$, which the report's PDF cannot draw: it nests \d+ layers deep \(at most 40\)/],
        [`Look: $$${HUGE_TEX}$$`, /has the formula \$\\rule\{20000pt\}\{20000pt\}\$, which the report's PDF cannot draw: it is 2\d{4} × 2\d{4} pt \(at most 2000 × 1000\)/],
        [`Solve ${DEEP_MATHML}`, /has the formula “√\(√\(.*” \(MathML\), which the report's PDF cannot draw: it nests \d+ layers deep/],
      ] as const) {
        const refused = await ctx().publish(instance, withPrompt('alpha', prompt));
        assert.equal(refused.statusCode, 400, refused.body);
        assert.match(refused.json().detail, words);
        assert.equal(refused.json().errors[0].name, 'questions.0.prompt');
      }
      const qti = await ctx().request({
        method: 'POST',
        url: `/admin/v1/instances/${instance}/assessments/qti`,
        payload: { fileName: 'deep.zip', content: qtiPackage(`<p>Is ${DEEP_MATHML.replace('<math', '<math xmlns="http://www.w3.org/1998/Math/MathML"')} positive?</p>`) },
      });
      assert.equal(qti.statusCode, 400, qti.body);
      assert.match(qti.json().detail, /which the report's PDF cannot draw: it nests \d+ layers deep/);
      const { rows } = await ctx().db.query<{ n: number }>('SELECT count(*)::int AS n FROM assessments a JOIN instances i ON i.id = a.instance_id WHERE i.name = $1', [instance]);
      assert.equal(rows[0]!.n, 0, 'nothing published');
      // Within the limits, the same kinds publish.
      const fine = await ctx().publish(instance, withPrompt('alpha', `Solve $$${'\\sqrt{'.repeat(8)}x${'}'.repeat(8)}$$ and $$\\rule{200pt}{20pt}$$`));
      assert.equal(fine.statusCode, 201, fine.body);
    });

    it('never fails a report for a formula that cannot be drawn: printed as its text, noted in the log', async () => {
      const instance = await ctx().instance('formula-text');
      assert.equal((await ctx().publish(instance, withPrompt('alpha', 'Before $$PLACEHOLDER$$ after. What is 2 + 2?'))).statusCode, 201);
      // As if published before the check: the stored version holds the formulas it refuses now.
      await ctx().db.query(
        `UPDATE assessment_versions v SET content = replace(v.content::text, 'PLACEHOLDER', $2)::jsonb
           FROM assessments a JOIN instances i ON i.id = a.instance_id WHERE v.assessment_id = a.id AND i.name = $1`,
        [instance, `${JSON.stringify(DEEP_TEX).slice(1, -1)}$$ and $$${JSON.stringify(HUGE_TEX).slice(1, -1)}$$ and ${JSON.stringify(DEEP_MATHML).slice(1, -1)}`],
      );
      const key = await ctx().key([instance]);
      const candidateId = await takeAssessment(ctx(), instance, key, { email: 'fay.formula@example.com', firstName: 'Fay', lastName: 'Formula' });
      const other = await takeAssessment(ctx(), instance, key, { email: 'olaf.other@example.com', firstName: 'Olaf', lastName: 'Other' });
      const user = await consoleUser(ctx(), `formula-${ctx().store}@example.com`, 'manager', [instance]);
      const session = await consoleAs(ctx(), `formula-${ctx().store}@example.com`, user.password);
      const page = await session.get(`/console/candidates/${candidateId}?instance=${instance}`);
      assert.equal(page.statusCode, 200, page.body.slice(0, 500));
      assert.match(page.body, /<math[^>]*>.*<msqrt>/s, 'the page shows the formula as MathML, as the portal does');
      const compare = await session.get(`/console/compare?instance=${instance}&assessment=alpha&ids=${candidateId}&ids=${other}`);
      assert.equal(compare.statusCode, 200, compare.body.slice(0, 300));
      const download = await session.get(`/console/candidates/${candidateId}/pdf/alpha?instance=${instance}`);
      assert.equal(download.statusCode, 200, download.body.slice(0, 300));
      const viaLink = await reportPdfOf(ctx(), key, candidateId, 'alpha');
      const invitations = (await ctx().request({ method: 'GET', url: `/v1/candidates/${candidateId}`, headers: { 'x-api-key': key } })).json().invitations;
      const link = new URL(invitations[0].reportUrl);
      const html = await ctx().request({ method: 'GET', url: `${link.pathname}${link.search}` });
      assert.equal(html.statusCode, 200);
      const file = path.join(work, `text-${ctx().store}.pdf`);
      writeFileSync(file, viaLink);
      const text = execFileSync('pdftotext', [file, '-'], { encoding: 'utf8' });
      assert.match(text, /Before\s+√\(√\(√/, 'the deep formula printed as text a person reads');
      assert.match(text, /What is 2 \+ 2\?/, 'and the rest of the report with it');
      assert.match(logged, /"msg":"report PDF: pictures that could not be drawn are printed as their text"/);
      assert.match(logged, /nests \d+ layers deep/);
      assert.match(logged, /is 2\d{4} × 2\d{4} pt/);
    });

    it('draws nothing for the HTML views, and a published version’s pictures once for its PDFs', async () => {
      const instance = await ctx().instance('formula-heavy');
      // 36 formulas within the limits (and the prompt's 4,000 characters), each of nested roots, a sum and an integral, all different.
      // (Other for each store: the pictures drawn are kept by the process, whichever store's report drew them.)
      const letter = ctx().store === 'pglite' ? 'p' : 'q';
      const formulas = Array.from({ length: 36 }, (_, n) => `$$\\frac{\\sqrt{${letter}_{${n}}+\\sqrt{b+\\sqrt{c+\\sqrt{d}}}}}{\\sum_{k=0}^{n}\\int_0^{x}\\frac{t^{k}}{k!}dt}$$`);
      const published = await ctx().publish(instance, withPrompt('alpha', `${formulas.join('\n\n')}\n\nWhat is 2 + 2?`));
      assert.equal(published.statusCode, 201, published.body);
      const key = await ctx().key([instance]);
      const candidateId = await takeAssessment(ctx(), instance, key, { email: 'hal.heavy@example.com', firstName: 'Hal', lastName: 'Heavy' });
      const user = await consoleUser(ctx(), `heavy-${ctx().store}@example.com`, 'manager', [instance]);
      const session = await consoleAs(ctx(), `heavy-${ctx().store}@example.com`, user.password);
      const url = `/console/candidates/${candidateId}?instance=${instance}`;
      assert.equal((await session.get(url)).statusCode, 200);
      // While the page is made again, /healthz answers as ever: nothing holds the event loop.
      const waits: number[] = [];
      let loading = true;
      const poll = (async () => {
        while (loading) {
          const began = performance.now();
          await ctx().request({ method: 'GET', url: '/healthz' });
          waits.push(performance.now() - began);
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      const page = await session.get(url);
      loading = false;
      await poll;
      assert.equal(page.statusCode, 200);
      assert.equal(page.body.match(/<math[\s>]/g)?.length, 36, 'the 36 formulas as MathML');
      assert.doesNotMatch(page.body, /formula-[0-9a-f]{64}\.png/, 'no drawn formula on the page');
      assert.ok(Math.max(...waits) < 1000, `/healthz answered within a second each time (${waits.map(Math.round).join(', ')} ms)`);

      const drawn = () => [...logged.matchAll(/"pictures":\{"drawn":(\d+),"reused":(\d+),"asText":(\d+)\}/g)].map((m) => m.slice(1).map(Number));
      const before = drawn().length;
      await reportPdfOf(ctx(), key, candidateId, 'alpha');
      await reportPdfOf(ctx(), key, candidateId, 'alpha');
      assert.deepEqual(
        drawn().slice(before),
        [
          [36, 0, 0],
          [0, 36, 0],
        ],
        'drawn for the first PDF, kept for the second',
      );
    });
  },
  { logStream: log },
);
