// The invitation e-mail: subject, plain-text and HTML parts rendered from templates with the
// same facts. Templates are files: the defaults in templates/, overridable per instance under
// $DATA_DIR/templates/<instance>/ with the same names. Placeholders are {{name}}; in the HTML
// part every value is escaped.
import { html, join } from '../../html/html.js';
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
}

export interface RenderedMessage {
  to: { name: string; address: string };
  subject: string;
  text: string;
  html: string;
}

export const DEFAULT_TEMPLATES = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'templates');
const PARTS = { subject: 'invitation.subject.txt', text: 'invitation.txt', html: 'invitation.html' } as const;


const minutes = (n: number) => `${n} minute${n === 1 ? '' : 's'}`;

/** Fills {{name}} placeholders; unknown names are left as they are, so a typo is visible. */
export function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{\{\s*([A-Za-z]+)\s*\}\}/g, (whole, name: string) => (name in values ? values[name]! : whole));
}

export function renderInvitationWith(templates: Record<keyof typeof PARTS, string>, message: InvitationMessage): RenderedMessage {
  const plain: Record<string, string> = {
    firstName: message.firstName,
    lastName: message.lastName,
    fullName: `${message.firstName} ${message.lastName}`,
    instance: message.instance,
    company: message.brand.company,
    contact: contactSentence(message.brand),
    link: message.link,
    expiresOn: message.expiresAt.toISOString().slice(0, 10),
    assessmentNames: message.assessments.map((a) => a.name).join(', '),
    assessmentCount: String(message.assessments.length),
    assessmentWord: message.assessments.length === 1 ? 'assessment' : 'assessments',
  };
  // The HTML template's values go through the template layer: each one escaped, the list as markup.
  const escaped = Object.fromEntries(Object.entries(plain).map(([k, v]) => [k, html`${v}`.toString()]));
  return {
    to: message.to,
    subject: fill(templates.subject, plain).replace(/\s+/g, ' ').trim(),
    text: fill(templates.text, { ...plain, assessmentList: message.assessments.map((a) => `  - ${a.name} (${minutes(a.durationMinutes)})`).join('\n') }),
    html: fill(templates.html, {
      ...escaped,
      assessmentList: join(message.assessments.map((a) => html`<li>${a.name} (${minutes(a.durationMinutes)})</li>`), '\n').toString(),
    }),
  };
}

/** Reads the instance's templates where it has them, the defaults otherwise. */
export async function loadTemplates(overrideDir: string | undefined): Promise<Record<keyof typeof PARTS, string>> {
  const read = async (file: string) => {
    if (overrideDir) {
      try {
        return await readFile(path.join(overrideDir, file), 'utf8');
      } catch {
        // no override for this part
      }
    }
    return readFile(path.join(DEFAULT_TEMPLATES, file), 'utf8');
  };
  const [subject, text, html] = await Promise.all([read(PARTS.subject), read(PARTS.text), read(PARTS.html)]);
  return { subject: subject!, text: text!, html: html! };
}
