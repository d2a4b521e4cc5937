// Taking the sample assessment through the portal as a candidate does, for suites that need a
// completed attempt behind what they test.
import assert from 'node:assert/strict';
import type { TestContext } from '../harness.js';

const formOf = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const FORM = 'application/x-www-form-urlencoded';

/** Invites a candidate and takes the sample assessment through the portal: q1 right, q4 free text, submitted. */
export async function takeAssessment(ctx: TestContext, instance: string, key: string, person: { email: string; firstName: string; lastName: string; extraTimePercent?: number }) {
  const [invite] = (await ctx.request({ method: 'POST', url: '/v1/invite', headers: { 'x-api-key': key, instance }, payload: { ...person, assessments: ['alpha'] } })).json();
  const opened = await ctx.request({ method: 'POST', url: '/portal/api/session', payload: { token: invite.link.split('sessionToken=')[1] } });
  const cookie = String(opened.headers['set-cookie']).split(';')[0]!;
  const intro = await ctx.request({ method: 'GET', url: '/portal/a/alpha', headers: { cookie } });
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(intro.body)![1]!;
  const form = (url: string, fields: Record<string, string> = {}) =>
    ctx.request({ method: 'POST', url, headers: { cookie, 'content-type': FORM }, payload: formOf({ _csrf: csrf, ...fields }) });
  assert.equal((await form('/portal/a/alpha/start')).statusCode, 303);
  for (const [question, value] of [
    ['q1', 1],
    ['q3', '1250'],
    ['q4', 'I listened, apologised & fixed the <order>.'],
  ] as const) {
    const saved = await ctx.request({ method: 'PUT', url: `/portal/api/a/alpha/answers/${question}`, headers: { cookie, 'x-csrf-token': csrf }, payload: { value } });
    assert.equal(saved.statusCode, 204, saved.body);
  }
  assert.equal((await form('/portal/a/alpha/submit')).statusCode, 303);
  return invite.candidateId as string;
}
