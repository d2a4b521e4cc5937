// The portal's parts of webcam snapshots: the Start form, which for an assessment that takes
// snapshots first says why and how they are kept and lets the candidate agree or decline (both
// start it), and the line in the attempt's bar that says snapshots are being taken (portal.js
// takes them, on the schedule its data attributes give).
import { html, type SafeHtml } from '../html/html.js';
import { t, type Lang } from '../i18n/i18n.js';
import type { WebcamSchedule } from '../modules/snapshots/repository.js';
import type { Brand } from '../modules/tenants/branding.js';

/** The page may use the camera (the portal's other pages may not: camera=()). */
export const WEBCAM_PERMISSIONS = 'camera=(self), microphone=(), geolocation=()';

/**
 * The Start form of an assessment: a plain Start button, or the webcam question with Agree and
 * Decline (both start), which names the company of `brand` (the candidate's instance).
 */
export function startForm(lang: Lang, csrf: string, slug: string, webcam: { intervalSeconds: number } | undefined, brand: Brand | undefined): SafeHtml {
  if (!webcam)
    return html`<form method="post" action="/portal/a/${slug}/start">
<input type="hidden" name="_csrf" value="${csrf}">
<button type="submit" class="primary">${t(lang, 'intro.start')}</button>
</form>`;
  const company = brand?.company ?? t(lang, 'layout.brand');
  const seconds = webcam.intervalSeconds;
  return html`<section class="webcam-consent" aria-labelledby="webcam-heading">
<h2 id="webcam-heading">${t(lang, 'webcam.heading')}</h2>
<p>${t(lang, 'webcam.why', { company, seconds })}</p>
<p>${t(lang, 'webcam.who', { company })}</p>
<p>${t(lang, 'webcam.choice')}</p>
<form method="post" action="/portal/a/${slug}/start">
<input type="hidden" name="_csrf" value="${csrf}">
<div class="actions">
<button type="submit" class="primary" name="webcam" value="agreed">${t(lang, 'webcam.agree')}</button>
<button type="submit" name="webcam" value="declined">${t(lang, 'webcam.decline')}</button>
</div>
</form>
</section>`;
}

/**
 * The attempt bar's line while snapshots are taken: portal.js reads when the next is due (the
 * server's clock, `data-now` to correct for the difference) and the interval, and says here when
 * the camera cannot be used.
 */
export function webcamNote(lang: Lang, schedule: WebcamSchedule | undefined, now: Date): SafeHtml | false {
  if (schedule?.choice !== 'agreed') return false;
  return html`<p class="webcam-note" id="webcam" role="status" data-interval="${schedule.intervalSeconds}" data-next="${schedule.nextAt.toISOString()}" data-now="${now.toISOString()}" data-reported="${String(schedule.cameraUnavailable)}">${t(lang, 'webcam.on', { seconds: schedule.intervalSeconds })}</p>`;
}
