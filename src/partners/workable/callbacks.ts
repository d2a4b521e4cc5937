// Workable's callback: once the result is final (and when it changes), a PUT of the `callback_url`
// Workable gave with the assessment, authenticated with the token Workable issued for the
// integration (Bearer), the body {status: "completed", score, grade, summary, results_url}.
// Workable's contract has no state before "completed": starting is not sent.
import type { CallbackFormat } from '../../modules/integrations/worker.js';
import { resultFacts, resultSummary } from '../result.js';

/** The invitation's events Workable is told of. */
export const WORKABLE_EVENTS = ['score.finalized', 'score.updated'];

export const workableCallbacks: CallbackFormat = {
  request({ callback, event, reportUrl, pdfUrl, settings }) {
    if (!callback.link.callbackUrl) return { skip: 'Workable gave no callback_url for this assessment' };
    const token = settings.secrets.token;
    if (!token) return { notReady: "no Workable token is set for this instance (the console's Integrations page, or assessment-connect ats workable)" };
    const facts = resultFacts(event.data.score, 'COMPLETED');
    if (!facts.final) return { skip: 'not final yet (a retake or a review pending)' };
    const body = {
      status: 'completed',
      score: facts.totalScore,
      grade: facts.scoreStatus,
      summary: resultSummary(facts),
      results_url: reportUrl,
      attachments: [{ name: 'Report (PDF)', url: pdfUrl }],
    };
    return { method: 'PUT', url: callback.link.callbackUrl, headers: { authorization: `Bearer ${token}`, accept: 'application/json' }, body: JSON.stringify(body) };
  },
};
