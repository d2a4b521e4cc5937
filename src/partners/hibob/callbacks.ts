// HiBob's callbacks (Bob Hiring Assessments API): a PATCH of
// {HIBOB_API_URL}/hiring/assessments/{assessmentRequestId} with the company's access token (Bearer),
// answered 204; the id is in the path, never in the body. `in_progress` when the candidate starts;
// when final `passed`, `failed` (or `completed` for a low pass, the verdict saying which) with the
// score, the report link, a section per category and a summary; `expired` when the invitation
// lapses. After Bob cancels an assessment nothing more is sent (its contract).
import type { CallbackFormat } from '../../modules/integrations/worker.js';
import { resultFacts, resultSummary } from '../result.js';

/** The invitation's events Bob is told of. */
export const HIBOB_EVENTS = ['assessment.started', 'score.finalized', 'score.updated', 'invitation.expired'];

export function hibobCallbacks(apiUrl: string): CallbackFormat {
  return {
    request({ callback, event, reportUrl, settings }) {
      const token = settings.secrets.accessToken;
      if (!token) return { notReady: "no HiBob access token is set for this instance (the console's Integrations page, or assessment-connect ats hibob)" };
      const id = String(callback.link.external.assessmentRequestId ?? '');
      const common = { providerAssessmentId: callback.link.publicId, resultUrl: reportUrl };
      let body: Record<string, unknown>;
      if (event.type === 'assessment.started') body = { status: 'in_progress', ...common };
      else if (event.type === 'invitation.expired') body = { status: 'expired', ...common, comments: 'Not taken before the invitation expired' };
      else {
        const facts = resultFacts(event.data.score, 'COMPLETED');
        if (!facts.final) return { skip: 'not final yet (a retake or a review pending)' };
        body = {
          status: facts.scoreStatus === 'PASS' ? 'passed' : facts.scoreStatus === 'FAIL' ? 'failed' : 'completed',
          ...common,
          score: facts.totalScore,
          verdict: facts.scoreStatus,
          sectionSummary: facts.categories.map((c) => ({ name: c.name, score: c.score })),
          comments: resultSummary(facts),
        };
      }
      return {
        method: 'PATCH',
        url: `${apiUrl}/hiring/assessments/${encodeURIComponent(id)}`,
        headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
        body: JSON.stringify(body),
      };
    },
  };
}
