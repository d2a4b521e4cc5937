// The catalogues: every language has exactly English's keys with the same placeholders, every
// message parses; choosing a language; plurals and numbers through Intl.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { formatMessage, placeholders } from './format.js';
import { LANGUAGES, chooseLanguage, direction, formatDateTime, formatPercent, fromAcceptLanguage, isRtl, loadCatalogue, supported, t } from './i18n.js';

/** What differs between a catalogue and English: missing and extra keys, placeholder mismatches. */
function catalogueProblems(english: Record<string, string>, other: Record<string, string>): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(english)) {
    if (!(key in other)) {
      problems.push(`missing ${key}`);
      continue;
    }
    const want = [...placeholders(english[key]!)].sort().join(',');
    const have = [...placeholders(other[key]!)].sort().join(',');
    if (want !== have) problems.push(`${key}: placeholders {${have}} instead of {${want}}`);
    if (other[key]!.trim() === '') problems.push(`${key}: empty`);
  }
  for (const key of Object.keys(other)) if (!(key in english)) problems.push(`extra ${key}`);
  return problems;
}

describe('message catalogues', () => {
  const english = loadCatalogue('en');
  const files = readdirSync(path.join(import.meta.dirname, 'messages')).map((f) => f.replace(/\.json$/, ''));

  it('has a catalogue file for every language offered, and offers every catalogue', () => {
    assert.deepEqual(files.sort(), Object.keys(LANGUAGES).sort());
    assert.ok(files.length >= 3, 'English and at least two more');
  });

  for (const lang of Object.keys(LANGUAGES).filter((l) => l !== 'en')) {
    it(`${lang} has every key of English with the same placeholders, and no other`, () => {
      assert.deepEqual(catalogueProblems(english, loadCatalogue(lang)), []);
    });
  }

  it('finds a missing key, an extra key and a placeholder mismatch', () => {
    const broken = { ...loadCatalogue('de') };
    delete broken['dashboard.hello'];
    broken['dashboard.bye'] = 'Tschüss';
    broken['attempt.progress'] = '{answered} von {all} beantwortet';
    assert.deepEqual(catalogueProblems(english, broken).sort(), [
      'attempt.progress: placeholders {all,answered} instead of {answered,total}',
      'extra dashboard.bye',
      'missing dashboard.hello',
    ]);
  });

  it('every message of every catalogue parses', () => {
    for (const lang of files) for (const [key, message] of Object.entries(loadCatalogue(lang))) assert.doesNotThrow(() => formatMessage(lang, message, {}), `${lang} ${key}`);
  });
});

/** Intl's no-break spaces as plain ones, for comparing. */
const spaces = (text: string) => text.replace(/[\u00a0\u202f]/g, ' ');

describe('formatting', () => {
  it('chooses plural forms by the language, with # as the formatted number', () => {
    assert.equal(t('en', 'confirm.message', { count: 1 }), 'You have 1 unanswered question. Submit anyway?');
    assert.equal(t('en', 'confirm.message', { count: 3 }), 'You have 3 unanswered questions. Submit anyway?');
    assert.equal(t('de', 'confirm.message', { count: 3 }), 'Sie haben 3 Fragen nicht beantwortet. Möchten Sie trotzdem abgeben?');
    assert.equal(t('es', 'confirm.message', { count: 1 }), 'Tiene 1 pregunta sin responder. ¿Desea enviar de todos modos?');
    assert.equal(t('de', 'dashboard.minutes', { minutes: 1500 }), '1.500 Minuten');
    assert.equal(formatMessage('en', '{n, plural, =0 {none} one {# item} other {# items}}', { n: 0 }), 'none');
    assert.equal(formatMessage('en', 'Hi {name}', {}), 'Hi {name}', 'a missing value stays visible');
  });

  it('shows accuracy with one decimal for the language, never rounded up to 100', () => {
    assert.equal(spaces(formatPercent('en', 99.8)), '99.8%');
    assert.equal(spaces(formatPercent('de', 99.8)), '99,8 %');
    assert.equal(spaces(formatPercent('es', 99.8)), '99,8 %');
    assert.equal(spaces(formatPercent('en', 99.96)), '99.9%', 'a typo never shows as 100 %');
    assert.equal(spaces(formatPercent('en', 100)), '100.0%');
  });

  it('formats the deadline for the language, in UTC', () => {
    const when = new Date('2026-12-07T10:00:00Z');
    assert.equal(spaces(formatDateTime('de', when)), '7. Dezember 2026 um 10:00 (UTC)');
    assert.equal(spaces(formatDateTime('es', when)), '7 de diciembre de 2026 a las 10:00 (UTC)');
    assert.equal(spaces(formatDateTime('en', when)), 'December 7, 2026 at 10:00 AM (UTC)');
    // In an instance's time zone, the zone and its offset at that moment named.
    assert.equal(spaces(formatDateTime('de', when, 'Europe/Berlin')), '7. Dezember 2026 um 11:00 (Europe/Berlin, UTC+01:00)');
    assert.equal(spaces(formatDateTime('en', new Date('2026-07-07T10:00:00Z'), 'America/New_York')), 'July 7, 2026 at 6:00 AM (America/New_York, UTC-04:00)');
    assert.equal(spaces(formatDateTime('es', when, 'Asia/Kolkata')), '7 de diciembre de 2026 a las 15:30 (Asia/Kolkata, UTC+05:30)');
  });
});

describe('choosing a language', () => {
  it('matches by primary subtag and falls back where no catalogue exists', () => {
    assert.equal(supported('de-AT'), 'de');
    assert.equal(supported('ES-mx'), 'es');
    assert.equal(supported('pt-BR'), undefined);
    assert.equal(chooseLanguage('pt-BR', undefined, 'es'), 'es');
    assert.equal(chooseLanguage('pt-BR', null), 'en');
  });

  it('reads Accept-Language by its q-values', () => {
    assert.equal(fromAcceptLanguage('fr-CH, fr;q=0.9, es;q=0.8, de;q=0.7'), 'es');
    assert.equal(fromAcceptLanguage('de;q=0.5, es;q=0.9'), 'es');
    assert.equal(fromAcceptLanguage('es;q=0, de'), 'de');
    assert.equal(fromAcceptLanguage('*'), undefined);
    assert.equal(fromAcceptLanguage(''), undefined);
    assert.equal(fromAcceptLanguage('pt-BR,pt;q=0.9'), undefined);
  });

  it('knows right-to-left scripts, though none ships yet', () => {
    assert.equal(isRtl('ar'), true);
    assert.equal(isRtl('he-IL'), true);
    assert.equal(isRtl('de'), false);
    assert.equal(direction('fa'), 'rtl');
    assert.equal(direction('en'), 'ltr');
  });
});
