// The language of an assessment's content for a candidate: the portal's language when the content
// has its translation, else English; once the attempt has started, the language it started in
// (kept until it is submitted, so every answer is given to the same wording). A candidate whose
// language the content (or the portal) lacks is told so, in the portal's language.
import { languageName, primaryTag, t, type Lang } from '../i18n/i18n.js';
import type { AssessmentContent } from '../modules/assessments/content-schema.js';
import { contentLanguages, localize, shownLanguage } from '../modules/assessments/translations.js';

export interface ShownContent {
  /** The content with its texts in `language`. */
  content: AssessmentContent;
  language: Lang;
  /** Why the content is not in the language the candidate asked for, if it is not. */
  notice?: string;
}

/**
 * The content as the candidate sees it. `lang`: the portal's language; `wanted`: the language the
 * candidate asked for first (their pick, the invitation's, the browser's), even one the portal
 * does not speak; `started`: the attempt's language, once there is one.
 */
export function shownContent(content: AssessmentContent, lang: Lang, wanted: string, started?: Lang): ShownContent {
  const language = started ?? shownLanguage(content, lang);
  const shown = { content: localize(content, language), language };
  if (primaryTag(wanted) === language) return shown;
  const available = (contentLanguages(content) as string[]).includes(primaryTag(wanted));
  const notice =
    started !== undefined && available
      ? t(lang, 'content.kept', { shown: languageName(lang, language) })
      : t(lang, 'content.notAvailable', { wanted: languageName(lang, wanted), shown: languageName(lang, language) });
  return { ...shown, notice };
}
