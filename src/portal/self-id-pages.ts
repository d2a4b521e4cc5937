// The completed page's voluntary self-identification: a form of its own, after the feedback, that
// says before anything else that it is optional, does not affect the result and is never seen by
// reviewers. No answer is preselected and none is required; "prefer not to say" is on every
// question (keys selfId.* of the catalogues).
import { html, type SafeHtml } from '../html/html.js';
import { t, type Lang } from '../i18n/i18n.js';
import type { SelfIdQuestion } from '../modules/equality/questions.js';

export function selfIdSection(
  lang: Lang,
  input: { slug: string; csrf: string; company: string; questions: SelfIdQuestion[]; current: Record<string, string>; state?: 'saved' | 'invalid' },
): SafeHtml {
  const { slug, csrf, questions, current, state } = input;
  const field = (q: SelfIdQuestion, qi: number) => html`<fieldset class="self-id-question"><legend>${q.label}</legend>
${q.options.map(
  (o, oi) =>
    html`<div class="option"><input type="radio" id="self-id-${qi}-${oi}" name="q.${q.id}" value="${o.id}"${current[q.id] === o.id && html` checked`}><label for="self-id-${qi}-${oi}">${o.label}</label></div>`,
)}
</fieldset>`;
  return html`<section class="self-id" id="self-id" aria-labelledby="self-id-heading">
<h2 id="self-id-heading">${t(lang, 'selfId.heading')}</h2>
<p id="self-id-intro"><strong>${t(lang, 'selfId.intro')}</strong></p>
<p>${t(lang, 'selfId.why', { company: input.company })}</p>
${state === 'saved' && html`<p class="info" role="status">${t(lang, 'selfId.saved')}</p>`}
${state === 'invalid' && html`<p class="error" role="alert">${t(lang, 'selfId.invalid')}</p>`}
<form method="post" action="/portal/a/${slug}/self-id" aria-describedby="self-id-intro">
<input type="hidden" name="_csrf" value="${csrf}">
${questions.map(field)}
<div class="actions"><button type="submit">${t(lang, 'selfId.save')}</button></div>
</form>
</section>`;
}
