// Property-based fuzzing of one real node over HTTP: fast-check generates requests to the public
// API and the portal API (odd bodies, bytes, content types and encodings, query strings, headers,
// methods), mostly with valid credentials so that they reach the handlers. Every answer must be
// below 500, every 4xx of /v1 and /portal/api a problem document carrying its own status, the
// process must stay up, and the database must keep its invariants afterwards.
// FUZZ_RUNS sets the number of generated requests (default 10,000); FUZZ_SEED replays a run.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import pg from 'pg';
import { sampleAssessment } from '../harness.js';
import { admin, figure, freshPostgresDatabase, startNode, tenant, type Node } from './support/server.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2_147_483_647);
const CONCURRENCY = 8;
const TIMEOUT_MS = 30_000;
/** The histogram entry of bodies over the limit whose connection closed before the 413 was read. */
const CLOSED = 0;

interface Session {
  slug: string;
  cookie: string;
  csrf: string;
}

interface Spec {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: Uint8Array;
  /** What the body is, for the report of a failure. */
  note: string;
  /** A query parameter the route does not declare: the answer must not be 2xx. */
  unknownParam?: string;
  /** The body nests deeper than the JSON depth limit: the answer must not be 2xx. */
  tooDeep?: boolean;
}

interface Context {
  instance: string;
  otherInstance: string;
  key: string;
  otherKey: string;
  revokedKey: string;
  sessions: Session[];
  candidateIds: string[];
  /** Session tokens of real invite links. */
  tokens: string[];
}

const utf8 = (text: string) => new Uint8Array(Buffer.from(text, 'utf8'));

// --- arbitraries --------------------------------------------------------------------------------

/** Strings with everything JSON can carry: Unicode, lone surrogates, control characters. */
const nastyChar = fc.oneof(
  fc.constantFrom(
    '\u0000',
    '\u0001',
    '\u001f',
    '\u007f',
    '\n',
    '\r',
    '\t',
    '\u2028',
    '\u202e',
    '\ufeff',
    '\ufffd',
    '\ud800',
    '\udfff',
    '"',
    '\\',
    '<',
    '>',
    '&',
    "'",
    ',',
    '%',
    '@',
    ' ',
  ),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }),
);
const nastyString = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: nastyChar, maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 300 }) },
  // Long strings: around the field limits and just past the 1 MB body limit.
  // n is the size of the string once in JSON, so that a body stays around 1.1 MB at most.
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(64, 255, 256, 1000, 10_000, 1_048_000, 1_100_000)
      .chain((n) => fc.constantFrom('a', 'é', '\u0000', '😀').map((c) => c.repeat(Math.ceil(n / Buffer.byteLength(JSON.stringify(c).slice(1, -1)))))),
  },
);

const email = fc.oneof(
  { weight: 5, arbitrary: fc.emailAddress() },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'Fuzz@Example.com',
      'fuzz@example.com',
      'FUZZ@EXAMPLE.COM',
      'a@b',
      '@',
      'a@',
      '@b.c',
      'a b@c.d',
      'a@b@c.d',
      'x'.repeat(300) + '@e.com',
      'ü@é.com',
      'a@b.c\n',
      ' a@b.c ',
    ),
  },
  { weight: 2, arbitrary: nastyString.map((s) => `${s}@example.com`) },
  { weight: 1, arbitrary: nastyString },
);

const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.double(),
    fc.constantFrom(1e308, -0, 2 ** 53 + 1, -1),
    nastyString,
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(nastyString, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** Deep nesting, which some parsers and validators handle badly. */
const deepNesting = fc.integer({ min: 10, max: 5000 }).map((n) => '['.repeat(n) + ']'.repeat(n));

/** The service's limit on JSON nesting (src/http/json-body.ts). */
const MAX_JSON_DEPTH = 64;

/** Arrays and objects mixed, `levels` deep, as JSON text (built as text: JSON.stringify recurses). */
const nestedText = (levels: number, objects: boolean) => {
  let text = '0';
  for (let i = 0; i < levels; i++) text = objects && i % 2 ? `{"k":${text}}` : `[${text}]`;
  return text;
};

/** A valid invite whose ignored extra field nests around and far past the limit. */
const deepInvite = fc
  .tuple(fc.constantFrom(MAX_JSON_DEPTH - 2, MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH, 100, 1000, 5000, 20_000), fc.boolean(), fc.constantFrom('extra', 'firstName', 'assessments'))
  .map(([levels, objects, field]) => {
    const body = JSON.stringify({ email: 'deep@example.com', firstName: 'Dee', lastName: 'Pest', assessments: ['alpha'], [field]: 0 }).replace(
      `"${field}":0`,
      `"${field}":${nestedText(levels, objects)}`,
    );
    // The body object is level 1.
    return { bytes: utf8(body), note: `deep nesting ${levels + 1}`, tooDeep: levels + 1 > MAX_JSON_DEPTH };
  });

/** Query parameters no /v1 route declares: typos, other cases, array syntax. */
const unknownParam = fc.oneof(
  fc.constantFrom(
    'sendinvite',
    'SendInvite',
    'send_invite',
    'candidateIds[]',
    'assessmentIds[0]',
    'candidateid',
    'assessmentID',
    'limt',
    'Limit',
    'curser',
    'page',
    'offset',
    'x',
    'instance',
    'api_key',
    '__proto__',
    'constructor',
  ),
  fc.string({ unit: fc.constantFrom('a', 'b', 'Z', '_', '-', '[', ']', '.'), minLength: 1, maxLength: 12 }),
);

/** Adds an unknown parameter to a /v1 request now and then. */
function withUnknownParam(spec: fc.Arbitrary<Spec>): fc.Arbitrary<Spec> {
  return fc.tuple(spec, fc.option(fc.tuple(unknownParam, fc.constantFrom('1', 'true', '', 'x')), { freq: 6 })).map(([s, extra]) => {
    if (!extra) return s;
    const [name, value] = extra;
    const declared = ['sendInvite', 'candidateIds', 'assessmentIds', 'limit', 'cursor'];
    if (declared.includes(name)) return s;
    const path = `${s.path}${s.path.includes('?') ? '&' : '?'}${encodeURIComponent(name)}=${value}`;
    return { ...s, path, unknownParam: name, note: `${s.note} +${name}` };
  });
}

function assessmentsValue(slugs: string[]) {
  return fc.oneof(
    { weight: 8, arbitrary: fc.subarray(slugs, { minLength: 1 }) },
    { weight: 2, arbitrary: fc.subarray(slugs, { minLength: 1 }).map((a) => a.join(',')) },
    { weight: 1, arbitrary: fc.constantFrom('', ',', 'alpha,,beta', ' alpha , beta ', 'ALPHA', 'nope', 'alpha,alpha', [], [''], ['alpha', 'alpha'], ['alpha', 'nope']) },
    { weight: 1, arbitrary: fc.array(fc.oneof(nastyString, fc.constant('alpha')), { maxLength: 5 }) },
    { weight: 1, arbitrary: fc.array(fc.constant('alpha'), { minLength: 100, maxLength: 2000 }) },
    { weight: 1, arbitrary: anyJson },
  );
}

/** An invite body: valid-ish, with fields of the wrong type, missing or extra. */
function inviteBody(slugs: string[], emails: fc.Arbitrary<string>) {
  const valid = fc.record({
    email: emails,
    firstName: fc.oneof({ weight: 8, arbitrary: fc.constantFrom('Fuzz', 'Ada', 'Zoë') }, nastyString),
    lastName: fc.oneof({ weight: 8, arbitrary: fc.constantFrom('Tester', 'Lovelace', "O'Brien") }, nastyString),
    assessments: assessmentsValue(slugs),
  });
  return fc.oneof(
    { weight: 14, arbitrary: valid },
    {
      weight: 3,
      arbitrary: fc.tuple(valid, fc.constantFrom('email', 'firstName', 'lastName', 'assessments'), anyJson, fc.boolean()).map(([body, field, value, drop]) => {
        const copy: Record<string, unknown> = { ...body };
        if (drop) delete copy[field];
        else copy[field] = value;
        return copy;
      }),
    },
    { weight: 1, arbitrary: fc.tuple(valid, nastyString, anyJson).map(([body, k, v]) => ({ ...body, [k]: v })) },
    { weight: 1, arbitrary: anyJson },
  );
}

/** A JSON value turned into body bytes, or raw bytes that are not JSON or not UTF-8. */
function bodyBytes(json: fc.Arbitrary<unknown>): fc.Arbitrary<{ bytes: Uint8Array; note: string; tooDeep?: boolean }> {
  return fc.oneof(
    { weight: 8, arbitrary: json.map((v) => ({ bytes: utf8(JSON.stringify(v) ?? 'null'), note: 'json' })) },
    { weight: 1, arbitrary: deepNesting.map((s) => ({ bytes: utf8(s), note: 'deep nesting', tooDeep: s.length / 2 > MAX_JSON_DEPTH })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }).map((b) => ({ bytes: b, note: 'random bytes' })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          '{"email":"\xff\xfe@x.com"}',
          '{"email": "a@b.c", "firstName": "\xc3\x28"}',
          '{',
          '{"a":}',
          'null',
          '',
          ' ',
          '"x"',
          '[]',
          '{"__proto__":{"x":1}}',
          '{"constructor":{"prototype":{}}}',
          '{"email":"a@b.c","email":"c@d.e"}',
          'email=a@b.c&firstName=x',
        )
        .map((s) => ({ bytes: new Uint8Array(Buffer.from(s, 'latin1')), note: 'raw' })),
    },
  );
}

const contentType = fc.oneof(
  { weight: 12, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      undefined,
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/json;;;',
      'APPLICATION/JSON',
      'application/problem+json',
      'application/vnd.api+json',
      'text/plain',
      'text/html',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'multipart/form-data',
      'application/octet-stream',
      'application/yaml',
      '',
      '*/*',
      'json',
      'application/json\u0000',
      'application/json, text/plain',
    ),
  },
);

const contentEncoding = fc.oneof(
  { weight: 15, arbitrary: fc.constant<string | undefined>(undefined) },
  { weight: 1, arbitrary: fc.constantFrom('gzip', 'deflate', 'br', 'bogus', 'identity', 'gzip, deflate', '') },
);

function encode(bytes: Uint8Array, encoding: string | undefined, honest: boolean): Uint8Array {
  if (!honest) return bytes;
  if (encoding === 'gzip') return new Uint8Array(gzipSync(bytes));
  if (encoding === 'deflate') return new Uint8Array(deflateSync(bytes));
  return bytes;
}

function credentialHeaders(ctx: Context) {
  const apiKey = fc.oneof(
    { weight: 20, arbitrary: fc.constant<string | undefined>(ctx.key) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<string | undefined>(
        undefined,
        '',
        ctx.revokedKey,
        ctx.otherKey,
        ctx.key + 'x',
        ctx.key.slice(0, -1),
        ctx.key.toUpperCase(),
        ' ' + ctx.key,
        'ak_live_' + 'z'.repeat(40),
        'x'.repeat(5000),
        'key\u00e9',
      ),
    },
  );
  const instance = fc.oneof(
    { weight: 20, arbitrary: fc.constant<string | undefined>(ctx.instance) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<string | undefined>(
        undefined,
        '',
        ctx.otherInstance,
        ctx.instance.toUpperCase(),
        ` ${ctx.instance}`,
        `${ctx.instance},${ctx.instance}`,
        'nope',
        '..',
        'a'.repeat(300),
        '%00',
        'ünï',
      ),
    },
  );
  return fc.record({ apiKey, instance }).map(({ apiKey, instance }) => {
    const headers: Record<string, string> = {};
    if (apiKey !== undefined) headers['x-api-key'] = apiKey;
    if (instance !== undefined) headers.instance = instance;
    return headers;
  });
}

/** Mostly the method of the route, sometimes another: unmatched methods count as probing (429 after 120 a minute). */
function method(usual: string, others: string[]): fc.Arbitrary<string> {
  return fc.oneof({ weight: 150, arbitrary: fc.constant(usual) }, { weight: 1, arbitrary: fc.constantFrom(...others) });
}

/** Header values must be Latin-1 without CR/LF/NUL for fetch; anything else would never reach us. */
function safeHeader(value: string): string {
  return value.replace(/[^\t\x20-\x7e\x80-\xff]/g, '?');
}

const idempotencyKey = fc.oneof(
  { weight: 6, arbitrary: fc.constant<string | undefined>(undefined) },
  { weight: 2, arbitrary: fc.uuid() },
  { weight: 1, arbitrary: fc.constantFrom('same-key', 'same-key', '', ' ', 'x'.repeat(255), 'x'.repeat(256), 'x'.repeat(5000), '\u00e9\u00e8', 'a\tb', "'; DROP TABLE x; --") },
  { weight: 1, arbitrary: fc.string({ maxLength: 300 }) },
);

const idList = (ctx: Context) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.subarray(ctx.candidateIds).map((ids) => ids.join(',')) },
    { weight: 2, arbitrary: fc.array(fc.uuid(), { maxLength: 10 }).map((ids) => ids.join(',')) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('', ',', ',,,', 'not-a-uuid', '00000000-0000-0000-0000-000000000000', 'alpha,beta', 'alpha,,beta', '%', '%zz', '%00', '%E9', '%C3%A9', '%2C', '+'),
    },
    // Short ids around the 500 limit (500 UUIDs would pass Node's 16 KB header limit: 431).
    { weight: 1, arbitrary: fc.constantFrom(499, 500, 501, 600).map((n) => Array.from({ length: n }, (_, i) => `c${i}`).join(',')) },
    { weight: 1, arbitrary: fc.array(fc.uuid(), { minLength: 200, maxLength: 300 }).map((ids) => ids.join(',')) },
    { weight: 1, arbitrary: fc.array(fc.constant('alpha'), { minLength: 500, maxLength: 600 }).map((ids) => ids.join(',')) },
    { weight: 1, arbitrary: nastyString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '?')).slice(0, 4000)) },
  );

function scoreRequest(ctx: Context): fc.Arbitrary<Spec> {
  const param = fc.record({ name: fc.constantFrom('candidateIds', 'assessmentIds', 'candidateIds[]', 'other', ''), value: idList(ctx), raw: fc.boolean() });
  return fc
    .tuple(
      fc.array(param, { maxLength: 4 }),
      credentialHeaders(ctx),
      fc.oneof({ weight: 20, arbitrary: fc.constant('GET') }, { weight: 1, arbitrary: fc.constant('HEAD') }, { weight: 1, arbitrary: method('GET', ['POST', 'DELETE']) }),
    )
    .map(([params, headers, method]) => {
      const query = params.map((p) => (p.raw ? `${p.name}=${p.value}` : `${encodeURIComponent(p.name)}=${encodeURIComponent(p.value)}`)).join('&');
      return { method, path: `/v1/score${query ? '?' + query : ''}`, headers, note: 'score' };
    });
}

function assessmentRequest(ctx: Context): fc.Arbitrary<Spec> {
  return fc
    .tuple(
      credentialHeaders(ctx),
      fc.constantFrom('', '?', '?x=1', '?limit=-1', '?instance=other', '?%zz', '?a=%00'),
      fc.oneof({ weight: 20, arbitrary: fc.constant('GET') }, { weight: 1, arbitrary: fc.constant('HEAD') }, { weight: 1, arbitrary: method('GET', ['PUT', 'OPTIONS']) }),
    )
    .map(([headers, query, method]) => ({ method, path: `/v1/assessment${query}`, headers, note: 'assessment list' }));
}

function inviteRequest(ctx: Context): fc.Arbitrary<Spec> {
  const slugs = ['alpha', 'beta'];
  // A pool of e-mails so that re-invites and case variants of the same person happen often.
  const emails = fc.oneof(
    { weight: 2, arbitrary: fc.integer({ min: 0, max: 40 }).chain((i) => fc.constantFrom(`pool${i}@example.com`, `POOL${i}@Example.COM`)) },
    { weight: 3, arbitrary: email },
  );
  const sendInvite = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom('?sendInvite=false', '', '?sendInvite=true') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '?sendInvite=',
        '?sendInvite=yes',
        '?sendInvite=1',
        '?sendInvite=false&sendInvite=true',
        '?sendInvite=%00',
        '?sendInvite=FALSE',
        '?sendinvite=false',
        '?sendInvite=false&x=%zz',
      ),
    },
  );
  return fc
    .tuple(
      credentialHeaders(ctx),
      sendInvite,
      idempotencyKey,
      fc.oneof({ weight: 14, arbitrary: bodyBytes(inviteBody(slugs, emails)) }, { weight: 1, arbitrary: deepInvite }),
      contentType,
      contentEncoding,
      fc.boolean(),
      method('POST', ['PUT', 'GET', 'PATCH']),
    )
    .map(([headers, query, idem, body, type, encoding, honest, method]) => {
      const h: Record<string, string> = { ...headers };
      if (idem !== undefined) h['idempotency-key'] = idem;
      if (type !== undefined) h['content-type'] = type;
      if (encoding !== undefined) h['content-encoding'] = encoding;
      const spec: Spec = { method, path: `/v1/invite${query}`, headers: h, body: method === 'GET' ? undefined : encode(body.bytes, encoding, honest), note: `invite ${body.note}` };
      if (body.tooDeep && spec.body && encoding === undefined) spec.tooDeep = true;
      if (query.toLowerCase().includes('sendinvite=') && !query.includes('sendInvite=')) spec.unknownParam = 'sendinvite';
      return spec;
    });
}

function portalRequest(ctx: Context): fc.Arbitrary<Spec> {
  const session = fc.constantFrom(...ctx.sessions);
  const auth = fc.tuple(session, fc.constantFrom('both', 'both', 'both', 'both', 'no-csrf', 'no-cookie', 'wrong-csrf', 'other-csrf')).map(([s, mode]) => {
    const headers: Record<string, string> = {};
    if (mode !== 'no-cookie') headers.cookie = s.cookie;
    if (mode === 'both') headers['x-csrf-token'] = s.csrf;
    if (mode === 'wrong-csrf') headers['x-csrf-token'] = s.csrf.slice(0, -2) + 'zz';
    if (mode === 'other-csrf') headers['x-csrf-token'] = ctx.sessions.find((o) => o.csrf !== s.csrf)?.csrf ?? 'x';
    return { s, headers };
  });
  const slug = (s: Session) =>
    fc.oneof({ weight: 6, arbitrary: fc.constant(s.slug) }, { weight: 1, arbitrary: fc.constantFrom('alpha', 'beta', 'nope', 'ALPHA', '%00', '%E9', 'a'.repeat(200), '..%2F..') });
  const questionId = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('q1', 'q2', 'q3', 'q4', 'q5') },
    { weight: 1, arbitrary: fc.constantFrom('q0', 'Q1', '%00', '%E9%80', 'a'.repeat(300), '__proto__', 'constructor') },
  );
  const answerValue = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom<unknown>(0, 1, [0, 2], [1], '1250', 'an answer', '0', ['0', '2'], '', 99, -1, [0, 0]) },
    { weight: 2, arbitrary: anyJson },
  );
  const answer = fc.oneof({ weight: 4, arbitrary: answerValue.map((value) => ({ value })) }, { weight: 1, arbitrary: anyJson });
  const signal = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        kind: fc.oneof(fc.constantFrom('focus-lost', 'paste', 'copy', 'visibility', 'fullscreen-exit'), nastyString),
        detail: fc.oneof(fc.constant(''), nastyString),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: anyJson, detail: anyJson }, { requiredKeys: [] }) },
    { weight: 1, arbitrary: anyJson },
  );
  const typing = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        typed: fc.oneof(fc.constant('The quick brown fox'), nastyString),
        intervals: fc.array(fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.double()), { maxLength: 50 }),
      }),
    },
    { weight: 1, arbitrary: fc.record({ typed: fc.string(), intervals: fc.array(fc.integer({ min: -10, max: 1_000_000 }), { minLength: 1000, maxLength: 20_000 }) }) },
    { weight: 1, arbitrary: fc.record({ typed: anyJson, intervals: anyJson }, { requiredKeys: [] }) },
    { weight: 1, arbitrary: anyJson },
  );
  // The HTML pages and their form posts too: a page may answer HTML, but never a 5xx.
  const formFields = (s: Session) =>
    fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .record(
            { value: fc.oneof(fc.constantFrom('0', '1', '2', '1250', 'an answer', ''), nastyString), go: fc.constantFrom('next', 'back', 'review', 'x', '') },
            { requiredKeys: [] },
          )
          .map((fields) => utf8(new URLSearchParams({ ...fields, _csrf: s.csrf }).toString())),
      },
      { weight: 1, arbitrary: nastyString.map((raw) => utf8(raw)) },
      { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }) },
    );
  const questionNumber = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('1', '2', '3', '4', '5') },
    { weight: 1, arbitrary: fc.constantFrom('0', '99', '-1', 'abc', '%00', '1e3', '9'.repeat(30)) },
  );
  const endpoint = fc.constantFrom(
    'answer',
    'answer',
    'answer',
    'signal',
    'signal',
    'typing-start',
    'typing',
    'typing',
    'session',
    'dashboard',
    'page',
    'form-answer',
    'form-answer',
    'start',
    'submit',
  );
  return fc
    .tuple(auth, endpoint, contentType, contentEncoding, fc.boolean(), fc.oneof({ weight: 150, arbitrary: fc.constant('std') }, { weight: 1, arbitrary: fc.constant('odd') }))
    .chain(([{ s, headers }, which, type, encoding, honest, methodMode]) => {
      const base = (method: string, path: string, body: fc.Arbitrary<unknown> | undefined) =>
        (body ? bodyBytes(body) : fc.constant(undefined)).chain((b) =>
          fc.constantFrom('GET', 'DELETE', 'PATCH', 'POST', 'PUT').map((odd): Spec => {
            const h: Record<string, string> = { ...headers };
            if (b && type !== undefined) h['content-type'] = type;
            if (b && encoding !== undefined) h['content-encoding'] = encoding;
            const m = methodMode === 'odd' ? odd : method;
            return { method: m, path, headers: h, body: b && m !== 'GET' ? encode(b.bytes, encoding, honest) : undefined, note: `portal ${which} ${b?.note ?? ''}` };
          }),
        );
      const form = (path: string) =>
        fc
          .tuple(
            formFields(s),
            fc.constantFrom<string | undefined>(
              'application/x-www-form-urlencoded',
              'application/x-www-form-urlencoded',
              'application/x-www-form-urlencoded',
              'text/plain',
              undefined,
              'multipart/form-data',
            ),
          )
          .map(([bytes, type]): Spec => ({
            method: methodMode === 'odd' ? 'PUT' : 'POST',
            path,
            headers: { ...headers, ...(type ? { 'content-type': type } : {}) },
            body: bytes,
            note: `portal ${which} form`,
          }));
      switch (which) {
        case 'dashboard':
          return fc.constant<Spec>({ method: 'GET', path: '/portal/', headers, note: 'portal dashboard' });
        case 'page':
          return fc
            .tuple(slug(s), fc.constantFrom('', '?q=1', '?q=99', '?q=abc', '?q=%00'))
            .map(([sl, q]): Spec => ({ method: 'GET', path: `/portal/a/${sl}${q}`, headers, note: 'portal page' }));
        case 'form-answer':
          return fc.tuple(slug(s), questionNumber).chain(([sl, n]) => form(`/portal/a/${sl}/q/${n}`));
        case 'start':
          return slug(s).chain((sl) => form(`/portal/a/${sl}/start`));
        case 'submit':
          return slug(s).chain((sl) => form(`/portal/a/${sl}/submit`));
        case 'answer':
          return fc.tuple(slug(s), questionId).chain(([sl, q]) => base('PUT', `/portal/api/a/${sl}/answers/${q}`, answer));
        case 'signal':
          return slug(s).chain((sl) => base('POST', `/portal/api/a/${sl}/signals`, signal));
        case 'typing-start':
          return slug(s).chain((sl) => base('POST', `/portal/api/a/${sl}/typing/start`, fc.oneof(fc.constant({}), anyJson)));
        case 'typing':
          return slug(s).chain((sl) => base('POST', `/portal/api/a/${sl}/typing`, typing));
        default:
          return base(
            'POST',
            '/portal/api/session',
            fc.oneof(fc.record({ token: fc.oneof(fc.constantFrom(...ctx.tokens), fc.base64String({ maxLength: 60 }), nastyString) }), anyJson),
          );
      }
    });
}

function anyRequest(ctx: Context): fc.Arbitrary<Spec> {
  return fc.oneof(
    { weight: 4, arbitrary: withUnknownParam(inviteRequest(ctx)) },
    { weight: 2, arbitrary: withUnknownParam(scoreRequest(ctx)) },
    { weight: 1, arbitrary: withUnknownParam(assessmentRequest(ctx)) },
    { weight: 4, arbitrary: portalRequest(ctx) },
  );
}

// --- running ------------------------------------------------------------------------------------

interface Outcome {
  status: number;
  type: string;
  body: string;
}

async function send(node: Node, spec: Spec): Promise<Outcome> {
  const headers = new Headers();
  for (const [k, v] of Object.entries(spec.headers)) headers.set(k, safeHeader(v));
  const response = await fetch(node.url + spec.path, {
    method: spec.method,
    headers,
    body: spec.body && spec.method !== 'GET' && spec.method !== 'HEAD' ? (spec.body as Uint8Array<ArrayBuffer>) : undefined,
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  return { status: response.status, type: response.headers.get('content-type') ?? '', body: await response.text() };
}

/** What is wrong with an answer, or undefined. */
function verdict(spec: Spec, outcome: Outcome): string | undefined {
  if (outcome.status >= 500) return `status ${outcome.status}`;
  if (spec.unknownParam !== undefined && outcome.status < 300) return `${outcome.status} for the unknown query parameter ${spec.unknownParam}`;
  if (spec.tooDeep && outcome.status < 300) return `${outcome.status} for a body nested deeper than ${MAX_JSON_DEPTH} levels`;
  const api = spec.path.startsWith('/v1/') || spec.path.startsWith('/portal/api/');
  if (api && outcome.status >= 400 && spec.method !== 'HEAD') {
    if (!outcome.type.startsWith('application/problem+json')) return `${outcome.status} as ${outcome.type || 'no content type'}`;
    let problem: { type?: unknown; title?: unknown; status?: unknown; detail?: unknown; requestId?: unknown };
    try {
      problem = JSON.parse(outcome.body);
    } catch {
      return `${outcome.status} problem that is not JSON`;
    }
    if (problem.status !== outcome.status) return `${outcome.status} problem says status ${String(problem.status)}`;
    if (typeof problem.type !== 'string' || typeof problem.title !== 'string' || typeof problem.requestId !== 'string')
      return `${outcome.status} problem without type/title/requestId`;
  }
  return undefined;
}

/** The most a request's body may hold where it is sent: the portal's forms take 64 KiB (src/portal/routes.ts), the rest 1 MiB. */
function bodyLimitOf(spec: Spec): number {
  const form = /^application\/x-www-form-urlencoded/i.test(spec.headers['content-type'] ?? '');
  return form && spec.path.startsWith('/portal/') ? 64 * 1024 : 1_048_576;
}

function describeSpec(spec: Spec): string {
  const body = spec.body ? Buffer.from(spec.body.slice(0, 300)).toString('latin1') + (spec.body.length > 300 ? `… (${spec.body.length} bytes)` : '') : '';
  return `${spec.method} ${spec.path.slice(0, 300)} ${JSON.stringify(spec.headers).slice(0, 400)} [${spec.note}] ${JSON.stringify(body)}`;
}

async function openSession(node: Node, t: { instance: string; key: string }, email: string, slug: string): Promise<Session & { candidateId: string; token: string }> {
  const invited = await fetch(`${node.url}/v1/invite?sendInvite=false`, {
    method: 'POST',
    headers: { 'x-api-key': t.key, instance: t.instance, 'content-type': 'application/json' },
    body: JSON.stringify({ email, firstName: 'Portal', lastName: 'Fuzz', assessments: ['alpha', 'beta'] }),
  });
  assert.equal(invited.status, 200, await invited.clone().text());
  const [invite] = (await invited.json()) as { link: string; candidateId: string }[];
  const token = invite!.link.split('sessionToken=')[1]!;
  const opened = await fetch(`${node.url}/portal/api/session`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token }) });
  assert.equal(opened.status, 200, await opened.clone().text());
  const cookie = opened.headers.getSetCookie()[0]!.split(';')[0]!;
  const page = await (await fetch(`${node.url}/portal/a/${slug}`, { headers: { cookie } })).text();
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(page)![1]!;
  return { slug, cookie, csrf, candidateId: invite!.candidateId, token };
}

export const INVARIANTS: { name: string; sql: string }[] = [
  {
    name: "an invitation's candidate and assessment are in its instance",
    sql: `SELECT count(*)::int AS n FROM invitations i JOIN candidates c ON c.id = i.candidate_id JOIN assessments a ON a.id = i.assessment_id
          WHERE c.instance_id <> i.instance_id OR a.instance_id <> i.instance_id`,
  },
  { name: 'no candidate without an invitation', sql: `SELECT count(*)::int AS n FROM candidates c WHERE NOT EXISTS (SELECT 1 FROM invitations i WHERE i.candidate_id = c.id)` },
  {
    name: 'e-mails unique per instance whatever their case',
    sql: `SELECT count(*)::int AS n FROM (SELECT 1 FROM candidates GROUP BY instance_id, lower(email) HAVING count(*) > 1) d`,
  },
  {
    name: 'no attempt or invitation finished before it started',
    sql: `SELECT (SELECT count(*) FROM attempts WHERE finished_at < started_at) + (SELECT count(*) FROM invitations WHERE finished_at < started_at)::int AS n`,
  },
  {
    name: 'scores and completion within 0-100',
    sql: `SELECT (SELECT count(*) FROM invitations WHERE total_score NOT BETWEEN 0 AND 100 OR completion NOT BETWEEN 0 AND 100)
               + (SELECT count(*) FROM answers WHERE review_score NOT BETWEEN 0 AND 100)
               + (SELECT count(*) FROM attempts WHERE typing_accuracy NOT BETWEEN 0 AND 100) AS n`,
  },
  {
    name: 'every link has its candidate, in its instance',
    sql: `SELECT count(*)::int AS n FROM invite_links l LEFT JOIN candidates c ON c.id = l.candidate_id WHERE c.id IS NULL OR c.instance_id <> l.instance_id`,
  },
  {
    name: 'every link opens only invitations of its candidate',
    sql: `SELECT count(*)::int AS n FROM invite_links l, unnest(l.assessment_ids) AS a(id)
          WHERE NOT EXISTS (SELECT 1 FROM invitations i WHERE i.candidate_id = l.candidate_id AND i.assessment_id = a.id)`,
  },
  {
    name: "an attempt is on its invitation's assessment",
    sql: `SELECT count(*)::int AS n FROM attempts t JOIN invitations i ON i.id = t.invitation_id WHERE t.assessment_id <> i.assessment_id`,
  },
];

/** Runs every invariant query; returns the ones that found offending rows. */
export async function checkInvariants(databaseUrl: string): Promise<{ checked: number; broken: string[] }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const broken: string[] = [];
    for (const { name, sql } of INVARIANTS) {
      const { rows } = await client.query<{ n: number | string }>(sql);
      if (Number(rows[0]!.n) !== 0) broken.push(`${name}: ${rows[0]!.n} rows`);
    }
    return { checked: INVARIANTS.length, broken };
  } finally {
    await client.end();
  }
}

describe('fuzzing the public and portal APIs of a real node', () => {
  let database: { url: string; drop(): Promise<void> };
  let node: Node;
  let ctx: Context;

  before(async () => {
    database = await freshPostgresDatabase();
    node = await startNode(database.url, { AUTH_FAILURES_PER_MINUTE: '100000' });
    const main = await tenant(node, 'fuzz', (id) => sampleAssessment(id, { typing: true }));
    const other = await tenant(node, 'fuzz-other', (id) => sampleAssessment(id, { typing: true }));
    const revoked = await admin(node, 'POST', '/keys', { instances: [main.instance] });
    const { id, key: revokedKey } = revoked.json as { id: string; key: string };
    assert.equal((await admin(node, 'POST', `/keys/${id}/revoke`)).status, 200);
    const sessions: (Session & { candidateId: string; token: string })[] = [];
    for (let i = 0; i < 6; i++) sessions.push(await openSession(node, main, `portal${i}@example.com`, i % 2 ? 'beta' : 'alpha'));
    // Half of the sessions have started their attempt, so that answers and signals reach storage.
    for (const s of sessions.slice(0, 4)) {
      const started = await fetch(`${node.url}/portal/a/${s.slug}/start`, { method: 'POST', redirect: 'manual', headers: { cookie: s.cookie, 'x-csrf-token': s.csrf } });
      assert.ok(started.status < 400, `start: ${started.status}`);
    }
    ctx = {
      instance: main.instance,
      otherInstance: other.instance,
      key: main.key,
      otherKey: other.key,
      revokedKey,
      sessions,
      candidateIds: sessions.map((s) => s.candidateId),
      tokens: sessions.map((s) => s.token),
    };
  });
  after(async () => {
    await node?.stop();
    await database?.drop();
  });

  it(`answers ${RUNS} generated requests below 500, with problem documents, and keeps the invariants`, { timeout: 30 * 60_000 }, async () => {
    const specs = fc.sample(anyRequest(ctx), { numRuns: RUNS, seed: SEED });
    const histogram = new Map<number, number>();
    /** Per endpoint: requests sent and answered 2xx, to show that the handlers were reached. */
    const reached = new Map<string, { sent: number; ok: number }>();
    const failures: string[] = [];
    let next = 0;
    let sent = 0;
    const began = Date.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < specs.length) {
          const spec = specs[next++]!;
          let problem: string | undefined;
          try {
            const outcome = await send(node, spec);
            histogram.set(outcome.status, (histogram.get(outcome.status) ?? 0) + 1);
            const endpoint = spec.note
              .split(' ')
              .slice(0, spec.note.startsWith('portal') ? 2 : 1)
              .join(' ');
            const counts = reached.get(endpoint) ?? { sent: 0, ok: 0 };
            counts.sent++;
            if (outcome.status < 300) counts.ok++;
            reached.set(endpoint, counts);
            problem = verdict(spec, outcome);
            if (problem) problem += ` ${outcome.body.slice(0, 300)}`;
          } catch (error) {
            const reason = `${(error as Error).message} ${String((error as { cause?: unknown }).cause ?? '')}`;
            // Over its route's limit the node answers 413 at once and closes the connection: a
            // client still writing the body may see the close before the answer. That is a refusal too.
            if (spec.body && spec.body.length > bodyLimitOf(spec) && /EPIPE|ECONNRESET|other side closed/.test(reason)) {
              histogram.set(CLOSED, (histogram.get(CLOSED) ?? 0) + 1);
            } else {
              problem = `request failed: ${reason}`;
            }
          }
          sent++;
          if (problem) failures.push(`${problem}\n    <- ${describeSpec(spec)}`);
        }
      }),
    );
    const seconds = (Date.now() - began) / 1000;
    const statuses = [...histogram.entries()]
      .sort(([a], [b]) => a - b)
      .map(([s, n]) => `${s === CLOSED ? 'closed-over-limit' : s}:${n}`)
      .join(' ');
    const fivexx = [...histogram.entries()].filter(([s]) => s >= 500).reduce((sum, [, n]) => sum + n, 0);
    figure(`fuzz: ${sent} requests (seed ${SEED}) in ${seconds.toFixed(0)} s, ${(sent / seconds).toFixed(0)} req/s, concurrency ${CONCURRENCY}`);
    figure(`fuzz: statuses ${statuses}`);
    figure(
      `fuzz: per endpoint (2xx/sent) ${[...reached.entries()]
        .sort()
        .map(([e, c]) => `${e} ${c.ok}/${c.sent}`)
        .join(', ')}`,
    );
    figure(`fuzz: ${fivexx} x 5xx, ${failures.length} failed checks`);

    const health = await fetch(`${node.url}/healthz`);
    assert.equal(health.status, 200, 'healthz');
    assert.equal(node.child.exitCode, null, 'process alive');
    assert.equal(node.child.signalCode, null, 'process alive');

    const { checked, broken } = await checkInvariants(database.url);
    figure(`fuzz: ${checked} database invariants checked, ${broken.length} broken`);
    if (failures.length > 0) process.stdout.write(`# server output (last 6000 characters):\n${node.output().slice(-6000)}\n`);
    assert.deepEqual(failures.slice(0, 20), [], `${failures.length} bad answers (replay with FUZZ_SEED=${SEED})`);
    assert.deepEqual(broken, []);
    assert.equal(sent, RUNS);
  });
});
