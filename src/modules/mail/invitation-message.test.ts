// The invitation e-mail's rendering: placeholders, escaping in the HTML part only, plurals, and
// per-instance template files that override the defaults part by part.
import { html } from '../../html/html.js';
import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { brandOf } from '../tenants/branding.js';
import { fill, loadTemplates, renderInvitationWith, type InvitationMessage } from './invitation-message.js';

const ACME = {
  name: 'acme',
  displayName: 'Acme Ltd',
  mailFromName: null,
  mailFromAddress: null,
  accentColor: null,
  supportEmail: 'jobs@acme.example',
  privacyUrl: null,
  logoSha256: null,
};

/** The brand of a company of this name (its display name). */
const company = (displayName: string) => brandOf({ ...ACME, displayName });

const message = (overrides: Partial<InvitationMessage> = {}): InvitationMessage => ({
  to: { name: 'Ada Lovelace', address: 'ada@example.com' },
  firstName: 'Ada',
  lastName: 'Lovelace',
  instance: 'acme',
  brand: brandOf(ACME),
  assessments: [
    { name: 'Numerical reasoning', durationMinutes: 30 },
    { name: 'Typing', durationMinutes: 1 },
  ],
  link: 'https://assess.example/portal/#?sessionToken=abc_DEF-123',
  expiresAt: new Date('2026-12-07T10:00:00Z'),
  ...overrides,
});

describe('invitation e-mail rendering', () => {
  it('fills placeholders and leaves unknown ones visible', () => {
    assert.equal(fill('Hi {{firstName}} {{ lastName }}, {{nope}}', { firstName: 'A', lastName: 'B' }), 'Hi A B, {{nope}}');
  });

  it('escapes every HTML-significant character', () => {
    assert.equal(html`${`<a href="x">O'Brien & co</a>`}`.toString(), '&lt;a href=&quot;x&quot;&gt;O&#39;Brien &amp; co&lt;/a&gt;');
  });

  it('renders the defaults: subject, text and HTML with the same facts', async () => {
    const rendered = renderInvitationWith(await loadTemplates(undefined), message());
    assert.equal(rendered.subject, 'Your invitation from Acme Ltd: Numerical reasoning, Typing');
    assert.match(rendered.text, /^Hello Ada,$/m);
    assert.match(rendered.text, /following assessments:/);
    assert.match(rendered.text, /^ {2}- Numerical reasoning \(30 minutes\)$/m);
    assert.match(rendered.text, /^ {2}- Typing \(1 minute\)$/m);
    assert.match(rendered.text, /valid until December 7, 2026 at 10:00 AM \(UTC\)/);
    assert.ok(rendered.text.includes('https://assess.example/portal/#?sessionToken=abc_DEF-123'));
    assert.ok(rendered.html.includes('<a href="https://assess.example/portal/#?sessionToken=abc_DEF-123">'));
    assert.match(rendered.html, /<li>Typing \(1 minute\)<\/li>/);
    assert.doesNotMatch(rendered.html, /\{\{|<img|<script/i);
  });

  it('names the company and whom to contact, by the one fallback rule', async () => {
    const templates = await loadTemplates(undefined);
    const branded = renderInvitationWith(templates, message());
    assert.match(branded.text, /^Acme Ltd invites you to take the following assessments:$/m);
    assert.match(branded.text, /^Questions\? Contact jobs@acme\.example\.$/m);
    assert.match(branded.html, /<p>Acme Ltd invites you to take/);
    assert.match(branded.html, /ask Acme Ltd for a new one/);
    // Nothing set: the sender name, else the instance name; the contact is the sender address, else the company.
    const bySender = renderInvitationWith(
      templates,
      message({ brand: brandOf({ ...ACME, displayName: null, supportEmail: null, mailFromName: 'Acme Hiring', mailFromAddress: 'hiring@acme.example' }) }),
    );
    assert.equal(bySender.subject, 'Your invitation from Acme Hiring: Numerical reasoning, Typing');
    assert.match(bySender.text, /Questions\? Contact hiring@acme\.example\./);
    const bare = renderInvitationWith(templates, message({ brand: brandOf({ ...ACME, displayName: null, supportEmail: null }) }));
    assert.equal(bare.subject, 'Your invitation from acme: Numerical reasoning, Typing');
    assert.match(bare.text, /Questions\? Contact acme, who invited you\./);
    // A hostile display name is escaped in the HTML part.
    const hostile = renderInvitationWith(templates, message({ brand: brandOf({ ...ACME, displayName: '<b>Evil</b> & Co' }) }));
    assert.match(hostile.html, /&lt;b&gt;Evil&lt;\/b&gt; &amp; Co invites you/);
    assert.doesNotMatch(hostile.html, /<b>Evil/);
  });

  it('says "assessment" for one', async () => {
    const rendered = renderInvitationWith(await loadTemplates(undefined), message({ assessments: [{ name: 'Typing', durationMinutes: 5 }] }));
    assert.match(rendered.text, /following assessment:/);
    assert.match(rendered.html, /Start your assessment</);
  });

  it('keeps hostile and Unicode names raw in text and escaped in HTML, and the subject on one line', async () => {
    const rendered = renderInvitationWith(
      await loadTemplates(undefined),
      message({ firstName: '<script>alert(1)</script>', lastName: "Ünïcødé O'Brien", assessments: [{ name: 'Q&A\r\nBcc: x@evil.example', durationMinutes: 2 }] }),
    );
    assert.match(rendered.text, /Hello <script>alert\(1\)<\/script>,/);
    assert.match(rendered.html, /Hello &lt;script&gt;alert\(1\)&lt;\/script&gt;,/);
    assert.doesNotMatch(rendered.html, /<script/);
    assert.equal(rendered.subject, 'Your invitation from Acme Ltd: Q&A Bcc: x@evil.example');
    assert.doesNotMatch(rendered.subject, /[\r\n]/);
    const unicode = renderInvitationWith(await loadTemplates(undefined), message({ firstName: 'Ünïcødé', lastName: "O'Brien" }));
    assert.match(unicode.text, /Hello Ünïcødé,/);
    assert.match(unicode.html, /Hello Ünïcødé,/);
  });

  it("uses an instance's template files where it has them, the defaults for the other parts", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ac-templates-'));
    try {
      mkdirSync(path.join(dir, 'acme'));
      writeFileSync(path.join(dir, 'acme', 'invitation.subject.txt'), 'Acme: {{assessmentCount}} {{assessmentWord}} for {{fullName}}\n');
      const rendered = renderInvitationWith(await loadTemplates(path.join(dir, 'acme')), message());
      assert.equal(rendered.subject, 'Acme: 2 assessments for Ada Lovelace');
      assert.match(rendered.text, /^Hello Ada,$/m);
      const missing = renderInvitationWith(await loadTemplates(path.join(dir, 'nobody')), message());
      assert.equal(missing.subject, 'Your invitation from Acme Ltd: Numerical reasoning, Typing');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('invitation e-mail in the candidate language', () => {
  it('writes German and Spanish with the company named, plurals and the deadline for the language', async () => {
    const de = renderInvitationWith(await loadTemplates(undefined, 'de'), message({ lang: 'de', brand: company('Beispiel GmbH') }));
    assert.equal(de.subject, 'Ihre Einladung von Beispiel GmbH: Numerical reasoning, Typing');
    assert.match(de.text, /^Guten Tag Ada,$/m);
    assert.match(de.text, /^Beispiel GmbH lädt Sie zu folgenden Tests ein:$/m);
    assert.match(de.text, /^ {2}- Numerical reasoning \(30 Minuten\)$/m);
    assert.match(de.text, /^ {2}- Typing \(1 Minute\)$/m);
    assert.match(de.text.replace(/\u202f|\u00a0/g, ' '), /gültig bis zum 7\. Dezember 2026 um 10:00 \(UTC\)\. Falls er abgelaufen ist, bitten Sie Beispiel GmbH um einen neuen\./);
    assert.match(de.html, /<html lang="de">/);
    assert.match(de.html, /<a href="https:\/\/assess\.example\/portal\/#\?sessionToken=abc_DEF-123">Tests beginnen<\/a>/);
    const es = renderInvitationWith(
      await loadTemplates(undefined, 'es'),
      message({ lang: 'es', brand: company('Ejemplo S.A.'), assessments: [{ name: 'Typing', durationMinutes: 1 }] }),
    );
    assert.equal(es.subject, 'Su invitación de Ejemplo S.A.: Typing');
    assert.match(es.text, /^Hola, Ada:$/m);
    assert.match(es.text, /Ejemplo S\.A\. le invita a realizar la siguiente evaluación:/);
    assert.match(es.text, /- Typing \(1 minuto\)/);
  });

  it('words a reminder as one, in the language', async () => {
    const reminder = renderInvitationWith(await loadTemplates(undefined, 'de'), message({ lang: 'de', brand: company('Beispiel GmbH'), reminder: true }));
    assert.equal(reminder.subject, 'Erinnerung von Beispiel GmbH: Numerical reasoning, Typing');
    assert.match(reminder.text, /Eine Erinnerung von Beispiel GmbH: Sie haben folgende Tests noch nicht begonnen:/);
  });

  it("takes an instance's template for the language before its own, before the default", async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ac-templates-'));
    try {
      mkdirSync(path.join(dir, 'acme', 'de'), { recursive: true });
      writeFileSync(path.join(dir, 'acme', 'invitation.subject.txt'), 'Acme: {{assessmentNames}}\n');
      writeFileSync(path.join(dir, 'acme', 'de', 'invitation.subject.txt'), 'Acme lädt ein: {{assessmentCount}} {{assessmentWord}}\n');
      const de = renderInvitationWith(await loadTemplates(path.join(dir, 'acme'), 'de'), message({ lang: 'de' }));
      assert.equal(de.subject, 'Acme lädt ein: 2 Tests');
      assert.match(de.text, /^Guten Tag Ada,$/m, 'the default body, in German');
      const es = renderInvitationWith(await loadTemplates(path.join(dir, 'acme'), 'es'), message({ lang: 'es' }));
      assert.equal(es.subject, 'Acme: Numerical reasoning, Typing');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
