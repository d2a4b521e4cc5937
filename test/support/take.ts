// Taking the sample assessment through the portal as a candidate does, for suites that need a
// completed attempt behind what they test.
import assert from 'node:assert/strict';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import type { TestContext } from '../harness.js';

/** What taking an assessment needs of a test's app: requests sent through it. */
type Requester = { request(options: InjectOptions): Promise<LightMyRequestResponse> };

const formOf = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = 'application/x-www-form-urlencoded';

/** Invites a candidate and takes the sample assessment through the portal: q1 right, q4 free text, submitted. */
export async function takeAssessment(ctx: TestContext, instance: string, key: string, person: { email: string; firstName: string; lastName: string; extraTimePercent?: number }) {
  const [invite] = (await ctx.request({ method: 'POST', url: '/v1/invite', headers: { 'x-api-key': key, instance }, payload: { ...person, assessments: ['alpha'] } })).json();
  await takeWithLink(ctx, invite.link);
  return invite.candidateId as string;
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
  const opened = await ctx.request({ method: 'POST', url: '/portal/api/session', payload: { token: link.split('sessionToken=')[1] } });
  assert.equal(opened.statusCode < 400, true, opened.body);
  const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
  const intro = await ctx.request({ method: 'GET', url: `/portal/a/${slug}`, headers: { cookie } });
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(intro.body)![1]!;
  const form = (url: string, fields: Record<string, string> = {}) =>
    ctx.request({ method: 'POST', url, headers: { cookie, 'content-type': FORM }, payload: formOf({ _csrf: csrf, ...fields }) });
  assert.equal((await form(`/portal/a/${slug}/start`)).statusCode, 303);
  if (stop === 'started') return;
  for (const [question, value] of answers) {
    const saved = await ctx.request({
      method: 'PUT',
      url: `/portal/api/a/${slug}/answers/${question}`,
      headers: { cookie, 'x-csrf-token': csrf },
      payload: { value } as InjectOptions['payload'],
    });
    assert.equal(saved.statusCode, 204, saved.body);
  }
  for (const kind of signals) {
    const sent = await ctx.request({ method: 'POST', url: `/portal/api/a/${slug}/signals`, headers: { cookie, 'x-csrf-token': csrf }, payload: { kind } });
    assert.ok(sent.statusCode < 300, sent.body);
  }
  assert.equal((await form(`/portal/a/${slug}/submit`)).statusCode, 303);
  if (feedback) assert.equal((await form(`/portal/a/${slug}/feedback`, feedback)).statusCode, 303);
}
