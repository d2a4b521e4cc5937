// Reading a CSV file of candidates: UTF-8 (with or without a byte-order mark), separated by commas
// or semicolons (whichever the header row has more of), fields quoted or not, parsed by csv-parse.
// What is refused, with a sentence for the person who uploaded it: an empty file, a file over the
// limits, binary data (a spreadsheet workbook, an image), text that is not UTF-8, a header row
// without names, rows of more cells than the header has names. Nothing is stored by reading.
//
// A row read as the input of POST /v1/invite (`rowInvite`): its cells by the chosen columns, checked
// by the invite's own rules, or what is wrong with it by column.
import { parse } from 'csv-parse/sync';
import { invalidInput } from '../../domain/errors.js';
import type { InviteRequest } from '../invitations/deps.js';
import { assessmentIds, parseInviteInput } from '../invitations/invite-input.js';

/** The largest file accepted, in bytes. */
export const MAX_FILE_BYTES = 5 * 1024 * 1024;
/** The most data rows (after the header) a file may have. */
export const MAX_ROWS = 10_000;
/** The most columns a file may have. */
export const MAX_COLUMNS = 50;
/** The longest cell, in characters. */
const MAX_CELL = 1000;

export interface CsvTable {
  headers: string[];
  /** Data rows with their line in the file (the header is line 1); blank lines are left out. */
  rows: { line: number; cells: string[] }[];
  delimiter: ',' | ';';
}

const refuse = (detail: string, line?: number) =>
  invalidInput([{ in: 'body', name: 'file', detail, ...(line === undefined ? {} : { line }) }], `The file cannot be read: ${detail}`);

/** The separator of the file: the one of commas and semicolons its first line has more of, outside quotes. */
function delimiterOf(text: string): ',' | ';' {
  let commas = 0;
  let semicolons = 0;
  let quoted = false;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && ch === ',') commas++;
    else if (!quoted && ch === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

// Control characters other than tab, line feed and carriage return: binary data, not text.
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const BINARY = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

/** Reads a CSV file's bytes into its header and rows, or throws a DomainError saying why it cannot. */
export function readCsv(bytes: Buffer): CsvTable {
  if (bytes.length === 0) throw refuse('the file is empty');
  if (bytes.length > MAX_FILE_BYTES) throw refuse(`the file is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB; split it into smaller files`);
  if (bytes.subarray(0, 4).equals(Buffer.from('PK\u0003\u0004', 'latin1')))
    throw refuse('this is a spreadsheet workbook (or another zip archive), not CSV: save it as "CSV UTF-8" and upload that');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    const at = firstBadByte(bytes);
    throw refuse(`the file is not UTF-8 text (first bad byte on line ${at.line}); save it as "CSV UTF-8"`, at.line);
  }
  if (BINARY.test(text)) {
    const index = text.search(BINARY);
    throw refuse('the file holds binary data (control characters), not CSV text', lineAt(text, index));
  }
  if (text.trim() === '') throw refuse('the file is empty');
  const delimiter = delimiterOf(text);
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, { delimiter, info: true, relax_column_count: true, skip_empty_lines: true, trim: true, max_record_size: 64 * 1024 }) as never;
  } catch (error) {
    const line = (error as { lines?: number }).lines;
    throw refuse(`it is not well-formed CSV (${csvMessage(error as Error)})`, line);
  }
  const [header, ...data] = records;
  if (!header) throw refuse('the file is empty');
  const headers = header.record.map((h) => h.trim());
  if (headers.length > MAX_COLUMNS) throw refuse(`it has ${headers.length} columns; at most ${MAX_COLUMNS} are read`, header.info.lines);
  if (headers.every((h) => h === '')) throw refuse('its first line (the header) names no column', header.info.lines);
  const rows: CsvTable['rows'] = [];
  for (const { record, info } of data) {
    if (record.every((c) => c === '')) continue;
    if (record.length > headers.length && record.slice(headers.length).some((c) => c !== '')) {
      throw refuse(`line ${info.lines} has ${record.length} cells but the header names ${headers.length} columns`, info.lines);
    }
    const long = record.findIndex((c) => c.length > MAX_CELL);
    if (long >= 0) throw refuse(`line ${info.lines}, column ${long + 1}: a cell is longer than ${MAX_CELL} characters`, info.lines);
    rows.push({ line: info.lines, cells: headers.map((_, i) => record[i] ?? '') });
    if (rows.length > MAX_ROWS) throw refuse(`it has more than ${MAX_ROWS} rows; split it into smaller files`);
  }
  if (rows.length === 0) throw refuse('it has a header but no rows of candidates');
  return { headers, rows, delimiter };
}

function csvMessage(error: Error): string {
  // csv-parse's messages start with its code in brackets; what follows is for people.
  return error.message.replace(/^Invalid\s+/, '').replace(/^.*?:\s*/, '');
}

const lineAt = (text: string, index: number) => text.slice(0, index).split('\n').length;

function firstBadByte(bytes: Buffer): { line: number } {
  // The longest prefix that decodes is good; the line is counted in it.
  let lo = 0;
  let hi = bytes.length;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  while (lo < hi) {
    const mid = Math.floor((lo + hi + 1) / 2);
    try {
      decoder.decode(bytes.subarray(0, mid), { stream: true });
      lo = mid;
    } catch {
      hi = mid - 1;
    }
  }
  let line = 1;
  for (let i = 0; i < lo; i++) if (bytes[i] === 0x0a) line++;
  return { line };
}

/** The fields of an invite a column can give, with the header words that name them. */
export const FIELDS = ['email', 'firstName', 'lastName', 'assessments', 'externalReference', 'language', 'extraTimePercent'] as const;
export type Field = (typeof FIELDS)[number];

export const FIELD_LABELS: Record<Field, string> = {
  email: 'E-mail',
  firstName: 'First name',
  lastName: 'Last name',
  assessments: 'Assessments',
  externalReference: 'External reference',
  language: 'Language',
  extraTimePercent: 'Extra time (%)',
};

const WORDS: Record<Field, string[]> = {
  email: ['email', 'e-mail', 'mail', 'emailaddress', 'e-mailaddress', 'courriel', 'correo', 'e-mail-adresse'],
  firstName: ['firstname', 'first', 'givenname', 'forename', 'vorname', 'prenom', 'prénom', 'nombre'],
  lastName: ['lastname', 'last', 'surname', 'familyname', 'nachname', 'nom', 'apellido', 'apellidos'],
  assessments: ['assessments', 'assessment', 'assessmentids', 'assessmentid', 'tests'],
  externalReference: ['externalreference', 'reference', 'ref', 'externalref', 'applicationid', 'application', 'externalid', 'id'],
  language: ['language', 'lang', 'locale', 'sprache', 'langue', 'idioma'],
  extraTimePercent: ['extratimepercent', 'extratime', 'extratime%', 'accommodation'],
};

// Parts of a header that name a field when no header is one of its words ("Work e-mail").
const PARTS: Partial<Record<Field, string[]>> = { email: ['mail'], firstName: ['first', 'given'], lastName: ['last', 'surname', 'family'] };

/**
 * Guesses which column gives which field from the header's names (whole words first, then parts),
 * and, when no header names the e-mail, the column whose cells mostly hold an @ in the first rows;
 * a column is used once.
 */
export function guessMapping(headers: string[], rows: CsvTable['rows'] = []): Partial<Record<Field, number>> {
  const mapping = guessFromHeaders(headers);
  if (mapping.email === undefined) {
    const sample = rows.slice(0, 100);
    const used = new Set(Object.values(mapping));
    const index = headers.findIndex((_, i) => !used.has(i) && sample.length > 0 && sample.filter((r) => /^[^@\s]+@[^@\s]+$/.test(r.cells[i] ?? '')).length * 2 > sample.length);
    if (index >= 0) mapping.email = index;
  }
  return mapping;
}

function guessFromHeaders(headers: string[]): Partial<Record<Field, number>> {
  const simple = headers.map((h) => h.toLowerCase().replace(/[\s_.()]/g, ''));
  const mapping: Partial<Record<Field, number>> = {};
  const used = new Set<number>();
  const take = (field: Field, test: (h: string) => boolean) => {
    if (mapping[field] !== undefined) return;
    const index = simple.findIndex((h, i) => !used.has(i) && test(h));
    if (index >= 0) {
      mapping[field] = index;
      used.add(index);
    }
  };
  for (const field of FIELDS) take(field, (h) => WORDS[field].includes(h));
  for (const field of FIELDS) take(field, (h) => (PARTS[field] ?? []).some((part) => h.includes(part)));
  return mapping;
}

/** Which column (by index) gives which field. */
export type Mapping = Partial<Record<Field, number>>;

/** A row's problem: the column (as the file names it) and why. */
export interface RowError {
  column: string;
  detail: string;
}

/** The assessments a row's own cell names (ids separated by `;` or `|`), in order, once each. */
const rowAssessments = (cell: string | undefined) =>
  assessmentIds(
    (cell ?? '')
      .split(/[;|]/)
      .map((id) => id.trim())
      .filter((id) => id !== ''),
  );

/**
 * The input of one row to the invite, or what is wrong with it, by the rules of POST /v1/invite:
 * the row's own assessments (its `assessments` cell) or, when it names none, the defaults; with
 * `published`, an assessment the instance does not have is the row's error.
 */
export function rowInvite(
  cells: string[],
  mapping: Mapping,
  headers: string[],
  defaults: string[],
  published?: ReadonlySet<string>,
): { request: InviteRequest } | { errors: RowError[] } {
  const cell = (field: Field) => {
    const index = mapping[field];
    return index === undefined ? undefined : (cells[index] ?? '').trim();
  };
  const column = (field: Field) => {
    const index = mapping[field];
    return index === undefined ? field : headers[index] || `column ${index + 1}`;
  };
  const own = rowAssessments(cell('assessments'));
  if (!own.ok) return { errors: own.errors.map((e) => ({ column: column('assessments'), detail: e.message })) };
  const assessments = own.value.length > 0 ? own.value : defaults;
  if (assessments.length === 0) return { errors: [{ column: column('assessments'), detail: 'names no assessment, and no default assessment was chosen' }] };
  const unknown = published ? assessments.filter((slug) => !published.has(slug)) : [];
  if (unknown.length > 0) return { errors: unknown.map((slug) => ({ column: column('assessments'), detail: `"${slug}" is not a published assessment of this instance` })) };
  const body: Record<string, unknown> = { email: cell('email') ?? '', firstName: cell('firstName') ?? '', lastName: cell('lastName') ?? '', assessments };
  for (const field of ['externalReference', 'language'] as const) {
    const value = cell(field);
    if (value) body[field] = value;
  }
  const extra = cell('extraTimePercent');
  if (extra) body.extraTimePercent = /^\d{1,6}$/.test(extra) ? Number(extra) : extra;
  const parsed = parseInviteInput(body);
  if (!parsed.ok) {
    const errors = parsed.errors.map((e) => {
      const field = FIELDS.find((f) => e.field === f || e.field.startsWith(`${f}.`));
      return { column: field === undefined || mapping[field] === undefined ? e.field : column(field), detail: e.message };
    });
    return { errors };
  }
  return { request: parsed.value };
}
