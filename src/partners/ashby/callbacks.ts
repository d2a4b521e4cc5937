// Ashby's callback: POST {ASHBY_API_URL}/assessment.update with HTTP Basic (the instance's Ashby
// API key as the username), each value an Ashby data value {identifier, label, type, value}:
// "Started" when the candidate starts, the result with the report URL and the category scores
// when final (and when it changes), and cancelled_reason when the invitation is withdrawn or
// expires. One invitation's updates leave in the order they happened (the job's claim).
import type { CallbackEvent, CallbackFormat } from '../../modules/integrations/worker.js';
import { resultFacts } from '../result.js';

/** The invitation's events Ashby is told of. */
export const ASHBY_EVENTS = ['assessment.started', 'assessment.completed', 'score.finalized', 'score.updated', 'invitation.cancelled', 'invitation.expired'];

type DataValue = { identifier: string; label: string; type: 'numeric_score' | 'numeric_duration_minutes' | 'url' | 'string' | 'boolean_success'; value: string | number | boolean };
const value = (identifier: string, label: string, type: DataValue['type'], v: DataValue['value']): DataValue => ({ identifier, label, type, value: v });

const slug = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');

/** The body of assessment.update for one event of an invitation Ashby started. */
export function assessmentUpdate(assessmentId: string, event: CallbackEvent, reportUrl: string): Record<string, unknown> {
  const base = { assessment_id: assessmentId, timestamp: Date.parse(event.timestamp) };
  const status = (text: string) => value('status', 'Status', 'string', text);
  const profile = value('report', 'Report', 'url', reportUrl);
  switch (event.type) {
    case 'invitation.cancelled':
      return { ...base, cancelled_reason: value('cancelled_reason', 'Cancelled', 'string', 'Withdrawn: the invitation was cancelled') };
    case 'invitation.expired':
      return { ...base, cancelled_reason: value('cancelled_reason', 'Cancelled', 'string', 'Expired: not started before the invitation expired') };
    case 'assessment.started':
      return { ...base, assessment_status: status('Started'), assessment_profile_url: profile };
  }
  const facts = resultFacts(event.data.score, 'COMPLETED');
  if (event.data.score.assessmentStatus !== 'COMPLETED') return { ...base, assessment_status: status('Invited again (retake)'), assessment_profile_url: profile };
  if (!facts.final) return { ...base, assessment_status: status('Completed: awaiting review'), assessment_profile_url: profile };
  const metadata: DataValue[] = [value('result', 'Result', 'string', facts.scoreStatus)];
  for (const c of facts.categories) metadata.push(value(`category_${slug(c.name)}`, c.name, 'numeric_score', c.score));
  if (facts.typingWpm > 0) metadata.push(value('typing_speed', 'Typing speed', 'string', `${facts.typingWpm} words per minute`));
  metadata.push(value('integrity', 'No integrity flags', 'boolean_success', !facts.redFlag));
  if (facts.minutesTaken !== undefined) metadata.push(value('time_taken', 'Time taken', 'numeric_duration_minutes', facts.minutesTaken));
  return {
    ...base,
    assessment_status: status('Completed'),
    assessment_profile_url: profile,
    assessment_result: value('total_score', 'Total score', 'numeric_score', facts.totalScore),
    metadata,
  };
}

export function ashbyCallbacks(apiUrl: string): CallbackFormat {
  const url = `${apiUrl.replace(/\/+$/, '')}/assessment.update`;
  return {
    request({ callback, event, reportUrl, settings }) {
      // Completed, with the result queued right behind it (nothing to review): Ashby hears the
      // result once, not "awaiting review" and then the result a moment later.
      if (event.type === 'assessment.completed' && (callback.nextEvent === 'score.finalized' || callback.nextEvent === 'score.updated'))
        return { skip: `the result (${callback.nextEvent}) follows at once` };
      if (!settings.apiKey) return { notReady: "no Ashby API key is set for this instance (the console's Integrations page, or assessment-connect ats ashby)" };
      return {
        method: 'POST',
        url,
        headers: { authorization: `Basic ${Buffer.from(`${settings.apiKey}:`).toString('base64')}`, accept: 'application/json' },
        body: JSON.stringify(assessmentUpdate(callback.link.publicId, event, reportUrl)),
      };
    },
  };
}
