// Lever's callbacks: notes on the opportunity (POST {LEVER_API_URL}/opportunities/{id}/notes, the
// customer's API key as the HTTP Basic username), as Lever's assessment pattern has it: one when
// the candidate starts, one with the result (the score, the verdict, each category, the report link
// and its PDF) when final, and one when the invitation is withdrawn or expires.
import type { CallbackFormat } from '../../modules/integrations/worker.js';
import { resultFacts, resultSummary } from '../result.js';

/** The invitation's events Lever is told of (as notes). */
export const LEVER_EVENTS = ['assessment.started', 'score.finalized', 'score.updated', 'invitation.cancelled', 'invitation.expired'];

export function leverCallbacks(apiUrl: string): CallbackFormat {
  return {
    request({ callback, event, reportUrl, pdfUrl, settings }) {
      const apiKey = settings.secrets.apiKey;
      if (!apiKey) return { notReady: "no Lever API key is set for this instance (the console's Integrations page, or assessment-connect ats lever)" };
      const assessment = event.data.assessmentId;
      let value: string;
      if (event.type === 'assessment.started') value = `Started the assessment ${assessment}. Progress: ${reportUrl}`;
      else if (event.type === 'invitation.cancelled') value = `The invitation to the assessment ${assessment} was withdrawn.`;
      else if (event.type === 'invitation.expired') value = `The invitation to the assessment ${assessment} expired before it was taken.`;
      else {
        const facts = resultFacts(event.data.score, 'COMPLETED');
        if (!facts.final) return { skip: 'not final yet (a retake or a review pending)' };
        value = `Assessment ${assessment} completed. ${resultSummary(facts)}.\nReport: ${reportUrl}\nPDF: ${pdfUrl}`;
      }
      const opportunity = String(callback.link.external.opportunityId ?? '');
      return {
        method: 'POST',
        url: `${apiUrl}/opportunities/${encodeURIComponent(opportunity)}/notes`,
        headers: { authorization: `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`, accept: 'application/json' },
        body: JSON.stringify({ value }),
      };
    },
  };
}
