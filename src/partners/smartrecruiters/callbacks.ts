// SmartRecruiters' callbacks (Assessment API, 2021): the order's status (IN_PROGRESS when the
// candidate starts, CANCELLED or EXPIRED when the invitation ends without a result) by PUT of
// {SMARTRECRUITERS_API_URL}/assessments/orders/{orderId}/status, and the result by POST of
// …/orders/{orderId}/results with the score, the verdict, the report link and its PDF. Each is
// authenticated with an access token from SmartRecruiters' OAuth endpoint, got with the customer's
// client credentials (client_credentials grant) and kept until shortly before it expires.
import type { CallbackFormat, PartnerHttp } from '../../modules/integrations/worker.js';
import { resultFacts, resultSummary } from '../result.js';

/** The invitation's events SmartRecruiters is told of. */
export const SMARTRECRUITERS_EVENTS = ['assessment.started', 'score.finalized', 'score.updated', 'invitation.cancelled', 'invitation.expired'];

const STATUS: Record<string, string> = { 'assessment.started': 'IN_PROGRESS', 'invitation.cancelled': 'CANCELLED', 'invitation.expired': 'EXPIRED' };

interface Token {
  value: string;
  expiresAt: number;
}

/** An access token for the customer's client, from the OAuth endpoint (or the one kept); a string says why there is none. */
async function accessToken(
  http: PartnerHttp,
  tokenUrl: string,
  cache: Map<string, Token>,
  client: { id: string; secret: string },
  now: Date,
): Promise<{ token: string } | { problem: string }> {
  const cacheKey = `${client.id}\n${client.secret}`;
  const kept = cache.get(cacheKey);
  if (kept && kept.expiresAt > now.getTime()) return { token: kept.value };
  const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: client.id, client_secret: client.secret }).toString();
  const answer = await http.call('POST', tokenUrl, { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, form);
  if (answer.status === undefined) return { problem: `SmartRecruiters' token endpoint did not answer (${answer.response})` };
  if (answer.status < 200 || answer.status >= 300) return { problem: `SmartRecruiters refused the client credentials (${answer.status})` };
  let body: { access_token?: unknown; expires_in?: unknown };
  try {
    body = JSON.parse(answer.response) as typeof body;
  } catch {
    return { problem: "SmartRecruiters' token answer is not JSON" };
  }
  if (typeof body.access_token !== 'string' || body.access_token === '') return { problem: "SmartRecruiters' token answer has no access_token" };
  const seconds = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 300;
  // Renewed a minute before it expires (or halfway, for short ones).
  cache.set(cacheKey, { value: body.access_token, expiresAt: now.getTime() + Math.max(seconds / 2, seconds - 60) * 1000 });
  return { token: body.access_token };
}

export function smartRecruitersCallbacks(apiUrl: string): CallbackFormat {
  const tokens = new Map<string, Token>();
  return {
    async request({ callback, event, reportUrl, pdfUrl, settings, http, now }) {
      const clientId = settings.options.clientId;
      const clientSecret = settings.secrets.clientSecret;
      if (!clientId || !clientSecret)
        return { notReady: "no SmartRecruiters client id and secret are set for this instance (the console's Integrations page, or assessment-connect ats smartrecruiters)" };
      const orderId = String(callback.link.external.orderId ?? '');
      const order = `${apiUrl}/assessments/orders/${encodeURIComponent(orderId)}`;
      let request: { method: 'PUT' | 'POST'; url: string; body: unknown };
      const status = STATUS[event.type];
      if (status) request = { method: 'PUT', url: `${order}/status`, body: { status } };
      else {
        const facts = resultFacts(event.data.score, 'COMPLETED');
        if (!facts.final) return { skip: 'not final yet (a retake or a review pending)' };
        request = {
          method: 'POST',
          url: `${order}/results`,
          body: {
            status: 'COMPLETED',
            score: { value: facts.totalScore, max: 100 },
            passed: facts.scoreStatus !== 'FAIL',
            verdict: facts.scoreStatus,
            summary: resultSummary(facts),
            resultUrl: reportUrl,
            attachments: [{ name: 'Report (PDF)', url: pdfUrl, contentType: 'application/pdf' }],
            completedOn: event.data.score.finished.slice(0, 23) + 'Z',
          },
        };
      }
      const token = await accessToken(http, `${apiUrl}/identity/oauth/token`, tokens, { id: clientId, secret: clientSecret }, now);
      if ('problem' in token) return { notReady: token.problem };
      return {
        method: request.method,
        url: request.url,
        headers: { authorization: `Bearer ${token.token}`, accept: 'application/json' },
        body: JSON.stringify(request.body),
      };
    },
  };
}
