// Report links: the reportUrl of GET /v1/candidates/{id} opens the candidate's report without an
// account, read-only; its PDF renders page by page (pdftoppm); a changed link, an expired one, a
// revoked one and every link after a key rotation open nothing; refused links are counted.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, it } from 'node:test';
import { describeEachStore, sampleAssessment } from './harness.js';
import { takeAssessment } from './support/take.js';
import { movingClock } from './support/clock.js';

const time = movingClock();
const clock = time.now;
const work = mkdtempSync(path.join(tmpdir(), 'ac-report-pdf-'));
after(() => rmSync(work, { recursive: true, force: true }));

const pathOf = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

describeEachStore(
  'report links',
  (ctx) => {
    let instance: string;
    let key: string;
    let candidateId: string;
    let link: string;
    const get = (url: string) => ctx().request({ method: 'GET', url });
    const reportUrl = async (id = candidateId) =>
      (
        (await ctx().request({ method: 'GET', url: `/v1/candidates/${id}`, headers: { 'x-api-key': key } })).json().invitations as { assessmentId: string; reportUrl: string }[]
      ).find((i) => i.assessmentId === 'alpha')!.reportUrl;

    it('gives a signed link that opens the report read-only, the same all day', async () => {
      instance = await ctx().instance('rep');
      await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { displayName: 'Report & Co' } });
      await ctx().publish(instance, sampleAssessment('alpha', { name: 'Alpha test' }));
      key = await ctx().key([instance]);
      candidateId = await takeAssessment(ctx(), instance, key, { email: 'ana.lima@example.com', firstName: 'Ana', lastName: 'Lima' });
      link = await reportUrl();
      assert.match(link, new RegExp(`^http://[^/]+/reports/${candidateId}/alpha\\?expires=\\d+&signature=[A-Za-z0-9_-]{22}$`));
      assert.equal(await reportUrl(), link, 'read again the same day: the same link');
      const expires = Number(new URL(link).searchParams.get('expires')) * 1000;
      const days = (expires - clock().getTime()) / 86_400_000;
      assert.ok(days > 90 && days <= 91, `90 days, to the next midnight (${days})`);

      const page = await get(pathOf(link));
      assert.equal(page.statusCode, 200, page.body);
      assert.match(String(page.headers['content-type']), /^text\/html/);
      assert.equal(page.headers['referrer-policy'], 'no-referrer');
      assert.equal(page.headers['x-robots-tag'], 'noindex, nofollow');
      assert.match(String(page.headers['cache-control']), /no-store/);
      assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
      assert.match(page.body, /Ana Lima/);
      assert.match(page.body, /<h1>Ana Lima<span class="report-company"> · Report &amp; Co<\/span><\/h1>/, 'whose report: the display name');
      assert.match(page.body, /Candidate report <span class="instance-name">· Report &amp; Co<\/span>/);
      assert.match(page.body, /Alpha test/);
      assert.match(page.body, /I listened, apologised &amp; fixed the &lt;order&gt;\./, 'answers are shown, escaped');
      assert.doesNotMatch(page.body, /review-form|name="score"/, 'no review form');
      assert.doesNotMatch(page.body, /Sign out|aria-label="Console"/, 'no console around it');
      assert.match(page.body, new RegExp(`href="/reports/${candidateId}/alpha\\.pdf\\?expires=\\d+&amp;signature=`));
    });

    it('gives the same report as a PDF, every page of which renders', async () => {
      const u = new URL(link);
      const response = await get(`${u.pathname}.pdf${u.search}`);
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'application/pdf');
      assert.match(String(response.headers['content-disposition']), /^inline; filename="Lima-alpha\.pdf"$/);
      assert.equal(response.rawPayload.subarray(0, 5).toString(), '%PDF-');
      const file = path.join(work, `${ctx().store}.pdf`);
      writeFileSync(file, response.rawPayload);
      const info = execFileSync('pdfinfo', [file], { encoding: 'utf8' });
      const pages = Number(/Pages:\s+(\d+)/.exec(info)![1]);
      assert.match(info, /Page size:\s+595\.28 x 841\.89 pts \(A4\)/);
      const prefix = path.join(work, `${ctx().store}-page`);
      execFileSync('pdftoppm', ['-r', '40', '-png', file, prefix]);
      const images = readdirSync(work).filter((f) => f.startsWith(`${ctx().store}-page`) && f.endsWith('.png'));
      assert.equal(images.length, pages, 'one image per page');
      for (let page = 1; page <= pages; page++) {
        const text = execFileSync('pdftotext', ['-f', String(page), '-l', String(page), '-layout', file, '-'], { encoding: 'utf8' });
        assert.match(text, new RegExp(`page ${page} of ${pages}`), `page ${page} has its footer`);
        if (page === 1) {
          for (const expected of ['Ana Lima', 'ana.lima@example.com', 'Alpha test', 'Total score', 'Thresholds', 'Red flag'])
            assert.ok(text.includes(expected), `${expected} on page 1`);
        }
      }
      const all = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' });
      for (const expected of [
        'Candidate report · Report & Co',
        'Answers',
        'What is 2 + 2?',
        'I listened, apologised & fixed the <order>.',
        'awaiting review',
        'Proctoring timeline',
      ])
        assert.ok(all.includes(expected), `${expected} in the PDF`);
    });

    it('opens nothing for a link that was changed in any part', async () => {
      const u = new URL(link);
      const expires = u.searchParams.get('expires')!;
      const signature = u.searchParams.get('signature')!;
      const other = signature.startsWith('A') ? `B${signature.slice(1)}` : `A${signature.slice(1)}`;
      for (const bad of [
        `/reports/${candidateId}/beta?expires=${expires}&signature=${signature}`,
        `/reports/${candidateId}/alpha?expires=${Number(expires) + 86_400}&signature=${signature}`,
        `/reports/${candidateId}/alpha?expires=${expires}&signature=${other}`,
        `/reports/${candidateId}/alpha?expires=${expires}`,
        `/reports/${candidateId}/alpha?expires=${expires}&signature=${signature}&x=1`,
        `/reports/${candidateId}/alpha?expires=soon&signature=${signature}`,
        `/reports/00000000-0000-4000-8000-000000000000/alpha?expires=${expires}&signature=${signature}`,
        `/reports/not-a-uuid/alpha?expires=${expires}&signature=${signature}`,
        `/reports/${candidateId}/alpha.pdf?expires=${expires}&signature=${other}`,
      ]) {
        const response = await get(bad);
        assert.equal(response.statusCode, 404, bad);
        assert.match(response.body, /does not open a report/);
      }
    });

    it('revokes one link: 410 from then on, idempotently; the instance setting sets the lifetime', async () => {
      const revoked = await ctx().request({ method: 'POST', url: '/admin/v1/report-links/revoke', headers: { 'x-request-id': 'revoke-link-1' }, payload: { url: link } });
      assert.equal(revoked.statusCode, 200, revoked.body);
      assert.deepEqual(revoked.json().candidateId, candidateId);
      const { rows: entries } = await ctx().db.query('SELECT actor, action, target, status FROM audit_log WHERE request_id = $1', ['revoke-link-1']);
      assert.deepEqual(entries, [{ actor: 'admin-token', action: 'report-link.revoke', target: `${candidateId}/alpha`, status: 200 }], 'audited by the command');
      const page = await get(pathOf(link));
      assert.equal(page.statusCode, 410);
      assert.match(page.body, /withdrawn/);
      assert.equal((await ctx().request({ method: 'POST', url: '/admin/v1/report-links/revoke', payload: { url: link } })).statusCode, 200, 'again: nothing changes');
      assert.equal((await ctx().request({ method: 'POST', url: '/admin/v1/report-links/revoke', payload: { url: 'https://example.com/nothing' } })).statusCode, 400);
      // Another signature: its first character changed (to one it is not: a signature beginning
      // with '_' stayed the same link, 1 run in 64, and the revoke answered 200).
      const forged = link.replace(/signature=(.)/, (_, first: string) => `signature=${first === 'A' ? 'B' : 'A'}`);
      assert.notEqual(forged, link);
      assert.equal((await ctx().request({ method: 'POST', url: '/admin/v1/report-links/revoke', payload: { url: forged } })).statusCode, 404);
      assert.equal((await ctx().request({ method: 'POST', url: '/admin/v1/report-links/revoke', payload: {} })).statusCode, 400);

      const changed = await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { reportLinkDays: 1 } });
      assert.equal(changed.statusCode, 200, changed.body);
      assert.equal(changed.json().reportLinkDays, 1);
      assert.equal((await ctx().request({ method: 'PATCH', url: `/admin/v1/instances/${instance}`, payload: { reportLinkDays: 0 } })).statusCode, 400);
      const short = await reportUrl();
      const days = (Number(new URL(short).searchParams.get('expires')) * 1000 - clock().getTime()) / 86_400_000;
      assert.ok(days > 1 && days <= 2, String(days));
      assert.equal((await get(pathOf(short))).statusCode, 200, 'a link with another expiry is another link, not revoked');
    });

    it('expires: 410 after its time, by the clock', async () => {
      const short = await reportUrl();
      time.offset += 3 * 86_400_000;
      const page = await get(pathOf(short));
      assert.equal(page.statusCode, 410);
      assert.match(page.body, /expired/);
      link = await reportUrl();
      assert.equal((await get(pathOf(link))).statusCode, 200, 'a link read now works');
    });

    it('a key rotation voids every earlier link; new links work', async () => {
      const rotated = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/report-links/rotate-key`, headers: { 'x-request-id': 'rotate-key-1' } });
      assert.equal(rotated.statusCode, 200, rotated.body);
      const { rows: entries } = await ctx().db.query('SELECT action, target FROM audit_log WHERE request_id = $1', ['rotate-key-1']);
      assert.deepEqual(entries, [{ action: 'report-link.rotate-key', target: instance }], 'audited by the command');
      assert.equal((await get(pathOf(link))).statusCode, 404);
      const fresh = await reportUrl();
      assert.notEqual(fresh, link);
      assert.equal((await get(pathOf(fresh))).statusCode, 200);
      assert.equal((await ctx().request({ method: 'POST', url: '/admin/v1/instances/no-such-instance/report-links/rotate-key' })).statusCode, 404);
    });

    it("an erased candidate's report is gone (410)", async () => {
      const other = await takeAssessment(ctx(), instance, key, { email: 'to.erase@example.com', firstName: 'To', lastName: 'Erase' });
      const url = await reportUrl(other);
      assert.equal((await get(pathOf(url))).statusCode, 200);
      const erased = await ctx().request({ method: 'POST', url: `/admin/v1/instances/${instance}/candidates/erase`, payload: { candidateId: other } });
      assert.equal(erased.statusCode, 200, erased.body);
      const page = await get(pathOf(url));
      assert.equal(page.statusCode, 410);
      assert.match(page.body, /erased/);
    });

    it('counts refused links per address: guessing ends in 429', async () => {
      const u = new URL(link);
      let status = 0;
      for (let i = 0; i < 40 && status !== 429; i++) {
        status = (await get(`${u.pathname}?expires=${u.searchParams.get('expires')}&signature=${'A'.repeat(21)}${i % 10}`)).statusCode;
      }
      assert.equal(status, 429);
    });
  },
  { now: clock, authFailuresPerMinute: 30 },
);
