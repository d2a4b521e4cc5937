// The invitation e-mail: subject, plain-text and HTML parts rendered from templates with the
// same facts, in the candidate's language. Templates are files: the defaults in templates/, whose
// sentences are placeholders filled from the message catalogues (src/i18n), overridable per
// instance under $DATA_DIR/templates/<instance>/<lang>/ (one language) or
// $DATA_DIR/templates/<instance>/ (all) with the same names. Placeholders are {{name}}; in the
// HTML part every value is escaped.
import { html, join } from '../../html/html.js';
import { formatDateTime, t, type Lang } from '../../i18n/i18n.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { contactSentence, type Brand } from '../tenants/branding.js';

export interface InvitationMessage {
  to: { name: string; address: string };
  firstName: string;
  lastName: string;
  instance: string;
  /** Whose invitation this is: the company's name and contact (brandOf). */
  brand: Brand;
  assessments: { name: string; durationMinutes: number }[];
  link: string;
  expiresAt: Date;
  /** The candidate's language: the invitation's, else the instance's default. */
  lang?: Lang;
  /** The instance's time zone, in which the deadline is given (default UTC). */
  timeZone?: string;
  /** A reminder of assessments not started yet, rather than the first invitation. */
  reminder?: boolean;
}

export interface RenderedMessage {
  to: { name: string; address: string };
  subject: string;
  text: string;
  html: string;
}

export const DEFAULT_TEMPLATES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'templates');
const PARTS = { subject: 'invitation.subject.txt', text: 'invitation.txt', html: 'invitation.html' } as const;

/** Fills {{name}} placeholders; unknown names are left as they are, so a typo is visible. */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{\s*([A-Za-z]+)\s*\}\}/g, (whole, name: string) => (name in values ? values[name]! : whole));
}

export function renderInvitationWith(templates: Record<keyof typeof PARTS, string>, message: InvitationMessage): RenderedMessage {
  const lang = message.lang ?? 'en';
  const company = message.brand.company;
  const count = message.assessments.length;
  const assessmentNames = message.assessments.map((a) => a.name).join(', ');
  const item = (a: { name: string; durationMinutes: number }) => t(lang, 'mail.item', { name: a.name, minutes: a.durationMinutes });
  const plain: Record<string, string> = {
    lang,
    firstName: message.firstName,
    lastName: message.lastName,
    fullName: `${message.firstName} ${message.lastName}`,
    instance: message.instance,
    company,
    contact: contactSentence(message.brand, lang),
    link: message.link,
    expiresOn: message.expiresAt.toISOString().slice(0, 10),
    deadline: formatDateTime(lang, message.expiresAt, message.timeZone),
    assessmentNames,
    assessmentCount: String(count),
    assessmentWord: t(lang, 'mail.assessmentWord', { count }),
    // The default templates' sentences, in the candidate's language.
    title: t(lang, 'mail.title'),
    subjectLine: t(lang, message.reminder ? 'mail.reminderSubject' : 'mail.subject', { company, assessments: assessmentNames }),
    greeting: t(lang, 'mail.greeting', { firstName: message.firstName }),
    invitedLine: t(lang, message.reminder ? 'mail.reminder' : 'mail.invited', { company, count }),
    openLine: t(lang, 'mail.open'),
    buttonText: t(lang, 'mail.button', { count }),
    copyLine: t(lang, 'mail.copy', { link: message.link }),
    validityLine: t(lang, 'mail.validity', { deadline: formatDateTime(lang, message.expiresAt, message.timeZone), company }),
  };
  // The HTML template's values go through the template layer: each one escaped, the list as markup.
  const escaped = Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, html`${v}`.toString()]));
  return {
    to: message.to,
    subject: fill(templates.subject, plain).replace(/\s+/g, ' ').trim(),
    text: fill(templates.text, { ...plain, assessmentList: message.assessments.map((a) => `  - ${item(a)}`).join('\n') }),
    html: fill(templates.html, {
      ...escaped,
      assessmentList: join(
        message.assessments.map((a) => html`<li>${item(a)}</li>`),
        '\n',
      ).toString(),
    }),
  };
}

/**
 * Reads the instance's templates where it has them (its folder for the language first, then its
 * own folder), the defaults otherwise, part by part.
 */
export async function loadTemplates(overrideDir: string | undefined, lang?: Lang): Promise<Record<keyof typeof PARTS, string>> {
  const dirs = overrideDir ? [...(lang ? [path.join(overrideDir, lang)] : []), overrideDir] : [];
  const read = async (file: string) => {
    for (const dir of dirs) {
      try {
        return await readFile(path.join(dir, file), 'utf8');
      } catch {
        // no override for this part here
      }
    }
    return readFile(path.join(DEFAULT_TEMPLATES, file), 'utf8');
  };
  const [subject, text, html] = await Promise.all([read(PARTS.subject), read(PARTS.text), read(PARTS.html)]);
  return { subject: subject!, text: text!, html: html! };
}
