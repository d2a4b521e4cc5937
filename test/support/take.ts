// Taking the sample assessment through the portal as a candidate does, for suites that need a
// completed attempt behind what they test.
import assert from 'node:assert/strict';
import type { TestContext } from '../harness.js';
import { invite, openPortal, type Requester } from './portal.js';

/** Invites a candidate and takes the sample assessment through the portal: q1 right, q4 free text, submitted. */
export async function takeAssessment(ctx: TestContext, instance: string, key: string, person: { email: string; firstName: string; lastName: string; extraTimePercent?: number }) {
  const invited = await invite(ctx, { instance, key }, person, ['alpha']);
  await takeWithLink(ctx, invited.link);
  return invited.candidateId;
}

const SAMPLE_ANSWERS: [string, unknown][] = [
  ['q1', 1],
  ['q3', '1250'],
  ['q4', 'I listened, apologised & fixed the <order>.'],
];

/**
 * Opens the portal with a sign-in link and takes an assessment (the sample `alpha` unless `slug`
 * says another): starts it, saves the answers (question id, value), sends the integrity signals
 * given, and submits; `stop` ends after starting (before any answer).
 */
export async function takeWithLink(
  ctx: Requester,
  link: string,
  stop?: 'started',
  answers: [string, unknown][] = SAMPLE_ANSWERS,
  { slug = 'alpha', signals = [], feedback }: { slug?: string; signals?: string[]; feedback?: { rating: string; comment: string } } = {},
) {
  const { form, save, post } = await openPortal(ctx, link, slug);
  assert.equal((await form(`/portal/a/${slug}/start`)).statusCode, 303);
  if (stop === 'started') return;
  for (const [question, value] of answers) {
    const saved = await save(question, value);
    assert.equal(saved.statusCode, 204, saved.body);
  }
  for (const kind of signals) {
    const sent = await post(`/portal/api/a/${slug}/signals`, { kind });
    assert.ok(sent.statusCode < 300, sent.body);
  }
  assert.equal((await form(`/portal/a/${slug}/submit`)).statusCode, 303);
  if (feedback) assert.equal((await form(`/portal/a/${slug}/feedback`, feedback)).statusCode, 303);
}

/** The PDF of a candidate's report on an assessment, fetched through the signed link GET /v1/candidates/{id} gives (checked 200). */
export async function reportPdfOf(ctx: Requester, key: string, candidateId: string, assessmentId: string): Promise<Buffer> {
  const invitations = (await ctx.request({ method: 'GET', url: `/v1/candidates/${candidateId}`, headers: { 'x-api-key': key } })).json().invitations as {
    assessmentId: string;
    reportUrl: string;
  }[];
  const u = new URL(invitations.find((i) => i.assessmentId === assessmentId)!.reportUrl);
  const pdf = await ctx.request({ method: 'GET', url: `${u.pathname}.pdf${u.search}` });
  assert.equal(pdf.statusCode, 200, pdf.body);
  return pdf.rawPayload;
}
