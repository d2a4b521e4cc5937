// The portal's language for a request: the candidate's own choice (the footer's switcher, kept in
// a cookie), else the invitation's language, else the browser's Accept-Language, else the
// instance's default; each only where a catalogue exists (by primary subtag: de-AT is de, pt-BR
// has none). Without a session, the choice and the browser decide.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Queryable } from '../db/database.js';
import { cookieOf } from '../http/cookies.js';
import { chooseLanguage, fromAcceptLanguage, isLang, preferredTag, type Lang } from '../i18n/i18n.js';
import { invitationLanguages } from '../modules/invitations/repository/portal.js';
import { findInstanceById, type Instance } from '../modules/tenants/repository.js';
import type { PortalSession } from './session.js';

export const LANG_COOKIE = 'ac_lang';

/** The language the candidate picked in the footer, if any. */
export function pickedLanguage(request: FastifyRequest): Lang | undefined {
  const value = cookieOf(request, LANG_COOKIE);
  return isLang(value) ? value : undefined;
}

/** The language of a page without a session: the candidate's pick, else the browser's, else English. */
export function requestLanguage(request: FastifyRequest): Lang {
  return chooseLanguage(pickedLanguage(request), fromAcceptLanguage(request.headers['accept-language']));
}

/** The language of a page in a session, with the instance (whose name the messages use). */
export async function sessionLanguage(
  db: Queryable,
  request: FastifyRequest,
  session: PortalSession,
  /** The session's instance when the request has read it already. */
  known?: { instance: Instance | undefined },
): Promise<{ lang: Lang; instance: Instance | undefined; wanted: string }> {
  const [languages, instance] = await Promise.all([
    invitationLanguages(db, session.candidateId, session.assessmentIds),
    known ? known.instance : findInstanceById(db, session.instanceId),
  ]);
  const lang = chooseLanguage(pickedLanguage(request), ...languages, fromAcceptLanguage(request.headers['accept-language']), instance?.defaultLanguage);
  // What the candidate asked for first, even in a language the portal does not speak (a French
  // browser): the assessment's page says it is not available in it.
  const wanted = pickedLanguage(request) ?? languages[0] ?? preferredTag(request.headers['accept-language']) ?? lang;
  return { lang, instance, wanted };
}

export function setLanguageCookie(reply: FastifyReply, lang: Lang, secure: boolean): void {
  reply.header('set-cookie', `${LANG_COOKIE}=${lang}; Path=/portal; HttpOnly; SameSite=Strict; Max-Age=31536000${secure ? '; Secure' : ''}`);
}
