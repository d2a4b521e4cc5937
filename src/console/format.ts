import { html } from '../html/html.js';
import { MIN_COHORT, type AssessmentReport } from '../modules/attempts/report.js';

const STATUS_TEXT: Record<string, string> = { INVITED: 'not started', IN_PROGRESS: 'in progress', COMPLETED: 'completed' };
export const statusText = (s: string) => STATUS_TEXT[s] ?? s;
export const SCORE_TEXT: Record<string, string> = { PASS: 'Pass', LOW_PASS: 'Low pass', FAIL: 'Fail', PENDING: 'Awaiting a score' };
export const scoreBadge = (s: string) => html`<span class="badge badge-${s.toLowerCase()}">${SCORE_TEXT[s] ?? s}</span>`;

export const when = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : '-');

export function duration(report: AssessmentReport): string {
  const a = report.attempt;
  if (!a?.finishedAt) return '-';
  const seconds = Math.round((new Date(a.finishedAt).getTime() - new Date(a.startedAt).getTime()) / 1000);
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
}

/** Who reviewed, as stored (`user:<e-mail>` or the operator's token), in words. */
export const reviewerName = (stored: string) => (stored.startsWith('user:') ? stored.slice(5) : stored === 'admin-token' ? 'the operator' : stored);

/** A percentile with its norm group named, or why there is none yet (too few completed this version to compare with). */
export function percentileText(r: Pick<AssessmentReport, 'percentile' | 'norm' | 'record'>): string {
  if (r.record.assessmentStatus !== 'COMPLETED' || r.record.scoreStatus === 'PENDING') return '-';
  if (r.norm.kind === 'none') return `not yet: ${r.norm.size} completed this version, ${r.norm.needed} more needed for the instance's own norm (it needs ${MIN_COHORT})`;
  return r.percentile === null ? `no total norm (norm group: ${r.norm.group})` : `${r.percentile} (norm group: ${r.norm.group})`;
}

/** Each category's percentile against the norm group, in words; empty without them. */
export function categoryPercentilesText(r: Pick<AssessmentReport, 'norm'>): string {
  const entries = Object.entries(r.norm.categories);
  return entries.length === 0 ? '' : entries.map(([name, percentile]) => `${name} ${percentile}`).join('; ');
}

/** Where a candidate's page links for one assessment's PDF (reports/download.ts). */
export const pdfPath = (instance: string, candidateId: string, assessmentId: string) =>
  `/console/candidates/${encodeURIComponent(candidateId)}/pdf/${encodeURIComponent(assessmentId)}?instance=${encodeURIComponent(instance)}`;

/** Where a candidate's page links for one assessment's signed report link (reports/download.ts). */
export const reportLinkPath = (instance: string, candidateId: string, assessmentId: string) =>
  `/console/candidates/${encodeURIComponent(candidateId)}/link/${encodeURIComponent(assessmentId)}?instance=${encodeURIComponent(instance)}`;

/** The names of the applicant-tracking systems with adapters, as the console writes them. */
export const ATS_LABELS = { greenhouse: 'Greenhouse', ashby: 'Ashby', workable: 'Workable', hibob: 'HiBob', lever: 'Lever', smartrecruiters: 'SmartRecruiters' } as const;

/**
 * A question as a recruiter names it: the first words of its prompt as plain text (Markdown's
 * marks, links' addresses and pictures left out), at most `words` words, never its id.
 */
export function promptTitle(prompt: string, words = 8): string {
  const plain = prompt
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\$\$[^$]*\$\$|\$[^$\n]*\$/g, ' … ')
    .replace(/[*_`#>]+/g, '')
    .replace(/\s+/g, ' ')
    .trim();
  const all = plain.split(' ').filter(Boolean);
  return all.length <= words ? plain : `${all.slice(0, words).join(' ')} …`;
}
