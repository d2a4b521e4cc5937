// The rules that keep the design, read from the source itself:
// - each table is written by the one module that owns it (other code calls that module's
//   commands), SQL functions and triggers in migrations included; reads across tables are
//   allowed (a report joins what it shows);
// - imports run one way: surfaces (console, portal, cli, partners) over modules, modules over
//   the layers below (http, db, domain, html, i18n, jobs), never back up, and no cycles;
// - surfaces hold no SQL and read no clock of their own (Date.now(), new Date()): they call
//   commands and queries of the modules, with the app's clock.
// Each rule has a list of what does not meet it yet: the list may only shrink (an entry that
// meets the rule now fails the test until it is taken off).
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';

const ROOT = path.resolve(import.meta.dirname, '..', 'src');

const OWNERS: Record<string, string> = {
  instances: 'modules/tenants',
  instance_logos: 'modules/tenants',
  api_keys: 'modules/keys',
  api_key_instances: 'modules/keys',
  assessments: 'modules/assessments',
  assessment_versions: 'modules/assessments',
  assessment_media: 'modules/assessments',
  assessment_version_media: 'modules/assessments',
  candidates: 'modules/candidates',
  invitations: 'modules/invitations',
  invite_links: 'modules/invitations',
  deliveries: 'modules/invitations',
  idempotency_keys: 'modules/invitations',
  attempts: 'modules/attempts',
  answers: 'modules/attempts',
  proctor_signals: 'modules/attempts',
  attempt_feedback: 'modules/attempts',
  answer_fingerprints: 'modules/integrity',
  fingerprinted_answers: 'modules/integrity',
  portal_sessions: 'modules/invitations',
  audit_log: 'modules/audit',
  users: 'modules/users',
  user_instances: 'modules/users',
  console_sessions: 'modules/users',
  user_recovery_codes: 'modules/users',
  console_secrets: 'modules/users',
  instance_sso: 'modules/users',
  sso_sign_ins: 'modules/users',
  webhook_endpoints: 'modules/webhooks',
  outbox_events: 'modules/webhooks',
  webhook_deliveries: 'modules/webhooks',
  webhook_attempts: 'modules/webhooks',
  schema_migrations: 'db',
  server_secrets: 'db',
  partner_links: 'modules/integrations',
  partner_callbacks: 'modules/integrations',
  partner_settings: 'modules/integrations',
  report_link_keys: 'modules/reports',
  revoked_report_links: 'modules/reports',
  candidate_decisions: 'modules/decisions',
  candidate_tags: 'modules/decisions',
  saved_searches: 'modules/users',
  assessment_drafts: 'modules/assessments',
  bulk_invites: 'modules/bulk-invites',
  bulk_invite_rows: 'modules/bulk-invites',
  webcam_consents: 'modules/snapshots',
  webcam_snapshots: 'modules/snapshots',
  answer_reviews: 'modules/reviews',
  review_settlements: 'modules/reviews',
  review_assignments: 'modules/reviews',
  review_leads: 'modules/reviews',
  self_id_settings: 'modules/equality',
  self_identifications: 'modules/equality',
};

/**
 * SQL functions and triggers of the migrations that write tables: the module whose code calls
 * them (or, for a trigger, the module that owns its table), every table they write, and for each
 * written table another module owns, why SQL is the right place.
 */
const SQL_FUNCTIONS: Record<string, { module: string; writes: Record<string, string | true> }> = {
  save_answer: {
    module: 'modules/attempts',
    writes: {
      attempts: true,
      answers: true,
      invitations:
        "the invitation's completion moves with every answer saved: the portal's most frequent write, one round trip for the lock, the answer and the record (a transaction of the same statements is six)",
    },
  },
  save_answer_again: { module: 'modules/attempts', writes: { answers: true } },
  save_answers_again: { module: 'modules/attempts', writes: {} },
  portal_session_holds: { module: 'modules/invitations', writes: {} },
  invitations_record_stale: { module: 'modules/invitations', writes: {} },
  assessments_record_stale: {
    module: 'modules/assessments',
    writes: {
      invitations:
        "an invitation's ready score record names its assessment: renaming the assessment clears the records in the same statement, so that no read can find a record that disagrees with its assessment",
    },
  },
};

function migrations(): { file: string; text: string }[] {
  const dir = path.join(ROOT, 'db', 'migrations');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .map((f) => ({ file: f, text: readFileSync(path.join(dir, f), 'utf8') }));
}

const WRITES = /\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_]+)\b/g;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return entry === 'migrations' ? [] : sources(full);
    return entry.endsWith('.ts') && !entry.endsWith('.test.ts') ? [full] : [];
  });
}

describe('module boundaries', () => {
  it('every table is written only by its owning module', () => {
    const strays: string[] = [];
    const unknown = new Set<string>();
    for (const file of sources(ROOT)) {
      const relative = path.relative(ROOT, file);
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\b(?:INSERT\s+INTO|UPDATE|DELETE\s+FROM)\s+([a-z_]+)\b/g)) {
        const table = match[1]!;
        if (['SET', 'set'].includes(table)) continue;
        const owner = OWNERS[table];
        if (!owner) {
          unknown.add(`${table} (${relative})`);
          continue;
        }
        if (!relative.startsWith(`${owner}/`) && !relative.startsWith(`${owner}.`)) strays.push(`${relative} writes ${table}, which ${owner} owns`);
      }
    }
    assert.deepEqual([...unknown], [], 'every written table has an owner in this list');
    assert.deepEqual(strays, []);
  });

  it('SQL functions and triggers write only what their module owns, or say why', () => {
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const { file, text } of migrations()) {
      for (const match of text.matchAll(/CREATE\s+(?:OR\s+REPLACE\s+)?FUNCTION\s+([a-z_]+)\s*\([^]*?\$\$([^]*?)\$\$/g)) {
        const [, name, body] = match as unknown as [string, string, string];
        seen.add(name);
        const declared = SQL_FUNCTIONS[name];
        if (!declared) {
          problems.push(`${file}: function ${name} is not declared in SQL_FUNCTIONS`);
          continue;
        }
        for (const write of body.matchAll(WRITES)) {
          const table = write[1]!;
          if (table === 'SET') continue;
          if (!(table in declared.writes)) problems.push(`${file}: ${name} writes ${table}, which SQL_FUNCTIONS does not list`);
          else if (OWNERS[table] !== declared.module && typeof declared.writes[table] !== 'string')
            problems.push(`${file}: ${name} writes ${table} of ${OWNERS[table]} without saying why`);
        }
      }
    }
    assert.deepEqual(problems, []);
    assert.deepEqual(
      Object.keys(SQL_FUNCTIONS).filter((name) => !seen.has(name)),
      [],
      'every declared function exists',
    );
    // A function is called only from its module.
    const callers: string[] = [];
    for (const file of sources(ROOT)) {
      const relative = path.relative(ROOT, file);
      const text = readFileSync(file, 'utf8');
      for (const [name, { module }] of Object.entries(SQL_FUNCTIONS)) {
        if (new RegExp(`\\b${name}\\(`).test(text) && !relative.startsWith(`${module}/`)) callers.push(`${relative} calls ${name}, which ${module} owns`);
      }
    }
    assert.deepEqual(callers, []);
  });
});

/** The part of the code a file belongs to: `modules/<name>`, or its top folder, or the file at the top. */
function unitOf(relative: string): string {
  const parts = relative.split(path.sep);
  if (parts[0] === 'modules' || parts[0] === 'partners') return `${parts[0]}/${parts[1]}`;
  return parts.length > 1 ? parts[0]! : relative.replace(/\.ts$/, '');
}

/** Relative imports of every source file, as [from file, to file] (paths under src). */
function imports(): [string, string][] {
  const edges: [string, string][] = [];
  for (const file of sources(ROOT)) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'(\.[^']+)'/g)) {
      const target = path.resolve(path.dirname(file), match[1]!).replace(/\.js$/, '.ts');
      edges.push([path.relative(ROOT, file), path.relative(ROOT, target)]);
    }
  }
  return edges;
}

const SURFACES = new Set(['console', 'portal', 'cli', 'server', 'app', 'workers', 'runtime', 'seed']);
const LOWER = new Set(['http', 'db', 'domain', 'html', 'i18n', 'jobs', 'config']);

/** Imports that run the wrong way today, to be taken off as they are fixed. */
const KNOWN_BACK_ARROWS = new Set<string>([]);
/** Cycles between units today. */
const KNOWN_CYCLES = new Set<string>([]);

describe('the direction of imports', () => {
  it('no arrow runs back up: modules never import surfaces, lower layers never import modules or surfaces', () => {
    const back: string[] = [];
    for (const [from, to] of imports()) {
      const [a, b] = [unitOf(from), unitOf(to)];
      if (a === b) continue;
      const wrong = (a.startsWith('modules/') && (SURFACES.has(b) || b.startsWith('partners/'))) || (LOWER.has(a) && !LOWER.has(b));
      if (wrong) back.push(`${from} -> ${to}`);
    }
    assert.deepEqual(
      back.filter((edge) => !KNOWN_BACK_ARROWS.has(edge)),
      [],
      'a new arrow back up',
    );
    assert.deepEqual(
      [...KNOWN_BACK_ARROWS].filter((edge) => !back.includes(edge)),
      [],
      'fixed: take it off KNOWN_BACK_ARROWS',
    );
  });

  it('no import cycle between files', () => {
    const next = new Map<string, string[]>();
    for (const [from, to] of imports()) next.set(from, [...(next.get(from) ?? []), to]);
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, trail: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const to of next.get(file) ?? []) visit(to, [...trail, file]);
      state.set(file, 'done');
    };
    for (const file of next.keys()) visit(file, []);
    assert.deepEqual(cycles, []);
  });

  it('no two units import each other', () => {
    const pairs = new Set<string>();
    const edges = new Set(imports().map(([from, to]) => `${unitOf(from)} -> ${unitOf(to)}`));
    for (const edge of edges) {
      const [a, b] = edge.split(' -> ') as [string, string];
      if (a !== b && edges.has(`${b} -> ${a}`)) pairs.add([a, b].sort().join(' <-> '));
    }
    assert.deepEqual(
      [...pairs].filter((p) => !KNOWN_CYCLES.has(p)),
      [],
      'a new cycle',
    );
    assert.deepEqual(
      [...KNOWN_CYCLES].filter((p) => !pairs.has(p)),
      [],
      'fixed: take it off KNOWN_CYCLES',
    );
  });
});

/** Surfaces that still hold SQL or read a clock of their own: to be moved into their modules. */
const KNOWN_SURFACE_DEBT: Record<string, ('sql' | 'clock')[]> = {};

describe('surfaces', () => {
  it('hold no SQL and read no clock of their own', () => {
    const found: Record<string, ('sql' | 'clock')[]> = {};
    for (const file of sources(ROOT)) {
      const relative = path.relative(ROOT, file);
      const surface = SURFACES.has(unitOf(relative)) || /(^|\/)[a-z-]*routes\.ts$/.test(relative) || relative.startsWith('partners/');
      if (!surface || ['server.ts', 'app.ts', 'workers.ts', 'runtime.ts', 'seed.ts'].includes(relative)) continue;
      const text = readFileSync(file, 'utf8');
      const kinds: ('sql' | 'clock')[] = [];
      if (/\b(?:db|tx|conn|deps\.db)\.(?:query|prepared)\s*[<(]/.test(text)) kinds.push('sql');
      if (/Date\.now\(\)|new Date\(\)/.test(text)) kinds.push('clock');
      if (kinds.length > 0) found[relative] = kinds;
    }
    const fresh = Object.entries(found).flatMap(([file, kinds]) => kinds.filter((k) => !KNOWN_SURFACE_DEBT[file]?.includes(k)).map((k) => `${file}: ${k}`));
    assert.deepEqual(fresh, [], 'a surface with SQL or a clock of its own: call a command or a query of the module, with the app clock');
    const fixed = Object.entries(KNOWN_SURFACE_DEBT).flatMap(([file, kinds]) => kinds.filter((k) => !found[file]?.includes(k)).map((k) => `${file}: ${k}`));
    assert.deepEqual(fixed, [], 'fixed: take it off KNOWN_SURFACE_DEBT');
  });
});

/** A statement sent to a store: `.query(`, `.query<…>(`, `.prepared(`, `.batches(` (optionally `?.`), and `conn.exec(`. */
const SQL_CALL = /\.(?:query|prepared|batches)(?:\?\.)?\s*[<(]|\bconn\.exec\(/g;

/** Where SQL belongs: a module's repository (`*repository.ts`, or a `repository/` folder) and the store itself (src/db/). */
const holdsSql = (relative: string) => relative.startsWith(`db${path.sep}`) || /(^|[/-])repository\.ts$/.test(relative) || relative.split(path.sep).includes('repository');

/**
 * Files outside repositories that still send SQL, each with why. The list may only shrink: a file
 * that sends none any more fails the test until it is taken off, and a file not on it may not start.
 */
const SQL_OUTSIDE_REPOSITORIES: Record<string, string> = {
  'app.ts': "the readiness probe's SELECT 1: it asks whether the store answers, not for data",
  'http/metrics.ts': "reads module tables for /metrics: to become each module's query (issue 62)",
  'jobs/statistics.ts': 'the statistics pass runs ANALYZE on the store itself: a job of the store, to move under src/db/',
  // Another helper is changing these modules (answer saves and submissions; the question builder): left for after.
  'modules/attempts/answer-saves.ts': 'attempts: another change in progress (submissions)',
  'modules/attempts/attempt-lookups.ts': 'attempts: another change in progress (submissions)',
  'modules/attempts/coding-grades.ts': 'attempts: another change in progress (submissions)',
  'modules/attempts/commands.ts': 'attempts: another change in progress (submissions)',
  'modules/attempts/completion.ts': 'attempts: another change in progress (submissions)',
  'modules/attempts/feedback.ts': 'attempts: another change in progress (submissions)',
  'modules/attempts/proctoring-report.ts': 'attempts: another change in progress (submissions)',
  'modules/attempts/report.ts': 'attempts: another change in progress (submissions)',
  'modules/attempts/signals.ts': 'attempts: another change in progress (submissions)',
  'modules/attempts/typing-test.ts': 'attempts: another change in progress (submissions)',
  'modules/scores/insights.ts': 'scores: another change in progress (submissions)',
  'modules/scores/norms.ts': 'scores: another change in progress (submissions)',
  'modules/audit/audit.ts': "the audit log's one INSERT and its reads: another change in progress (submissions)",
  'modules/assessments/drafts.ts': 'assessments: another change in progress (the question builder)',
  'modules/assessments/media-store.ts': 'assessments: another change in progress (the question builder)',
  'modules/assessments/media-sweep.ts': 'assessments: another change in progress (the question builder)',
  // Not moved yet (issue 62): each to its module's repository.
  'modules/bulk-invites/erasure.ts': 'not moved yet',
  'modules/bulk-invites/invite-row.ts': 'not moved yet',
  'modules/integrations/commands.ts': 'not moved yet',
  'modules/integrity/similarity.ts': 'not moved yet',
  'modules/invitations/idempotency.ts': 'not moved yet',
  'modules/invitations/invitation-mail.ts': 'not moved yet',
  'modules/invitations/lifecycle.ts': 'not moved yet',
  'modules/invitations/machine.ts': 'not moved yet',
  'modules/invitations/record.ts': 'not moved yet',
  'modules/invitations/score-records.ts': 'not moved yet',
  'modules/privacy/service.ts': 'not moved yet',
  'modules/reports/links.ts': 'not moved yet',
  'modules/users/saved-searches.ts': 'not moved yet',
  'modules/users/sso-sign-in.ts': 'not moved yet',
  'modules/users/sso.ts': 'not moved yet',
  'modules/users/totp.ts': 'not moved yet',
};

describe('SQL only in repositories', () => {
  it('no statement is sent outside a repository and src/db/, beyond the named list', () => {
    const found = new Map<string, number>();
    for (const file of sources(ROOT)) {
      const relative = path.relative(ROOT, file);
      if (holdsSql(relative)) continue;
      const code = readFileSync(file, 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '');
      const count = code.match(SQL_CALL)?.length ?? 0;
      if (count > 0) found.set(relative.split(path.sep).join('/'), count);
    }
    const fresh = [...found].filter(([file]) => !(file in SQL_OUTSIDE_REPOSITORIES)).map(([file, n]) => `${file}: ${n}`);
    assert.deepEqual(fresh, [], "SQL outside a repository: give the module's repository a named function and call it");
    const fixed = Object.keys(SQL_OUTSIDE_REPOSITORIES).filter((file) => !found.has(file));
    assert.deepEqual(fixed, [], 'fixed: take it off SQL_OUTSIDE_REPOSITORIES');
  });
});

describe('one clock', () => {
  it('the wall clock is read in one file (src/domain/clock.ts); everything else is handed a clock', () => {
    const readers = sources(ROOT)
      .filter((file) => path.relative(ROOT, file) !== path.join('domain', 'clock.ts'))
      .filter((file) => /Date\.now\b|new Date\(\s*\)/.test(readFileSync(file, 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '')))
      .map((file) => path.relative(ROOT, file));
    assert.deepEqual(readers, [], 'read the time from the clock the code is handed (domain/clock.ts: systemClock, wallMs, monotonicMs)');
  });

  it('the system clock is chosen only where a process starts; modules, jobs and pages are handed the app clock, with no fallback', () => {
    // The app (its default clock), the server's and the workers' start (the demo seed before an
    // app exists), and the store's breaker (its open interval, a test's clock when given).
    const allowed = ['app.ts', 'server.ts', 'workers.ts', path.join('db', 'database.ts'), path.join('domain', 'clock.ts')];
    const users = sources(ROOT)
      .map((file) => path.relative(ROOT, file))
      .filter((relative) => !allowed.includes(relative) && /\bsystemClock\b/.test(readFileSync(path.join(ROOT, relative), 'utf8')));
    assert.deepEqual(users, [], "take the clock as a required parameter (the app's, a job's `now`), never systemClock as a default");
  });

  it("the database's now() decides nothing: SQL is given the app's time", () => {
    const found: string[] = [];
    for (const file of sources(ROOT)) {
      const text = readFileSync(file, 'utf8');
      const parts = text.split('`');
      // Every other part is inside a template literal; what is interpolated in it is code, not SQL.
      for (let i = 1; i < parts.length; i += 2) {
        const sql = parts[i]!.replace(/\$\{[^}]*\}/g, '').replace(/DEFAULT now\(\)/g, '');
        if (/(?<![\w.$])now\(\)/.test(sql)) found.push(`${path.relative(ROOT, file)}: ${sql.trim().slice(0, 80)}`);
      }
    }
    assert.deepEqual(found, [], "pass the command's or job's time as a parameter");
  });
});

/** Transactions opened outside runCommand, with why: to be made commands. */
const KNOWN_TRANSACTIONS: Record<string, string> = {};

describe('commands', () => {
  it('transactions are opened by runCommand only (and by the store itself)', () => {
    const found = sources(ROOT)
      .map((file) => path.relative(ROOT, file))
      .filter((relative) => !relative.startsWith(`db${path.sep}`) && relative !== path.join('domain', 'command.ts'))
      .filter((relative) => /\.transaction\(/.test(readFileSync(path.join(ROOT, relative), 'utf8')));
    assert.deepEqual(
      found.filter((f) => !(f in KNOWN_TRANSACTIONS)),
      [],
      'a module opened a transaction of its own: make the change a command, run by runCommand',
    );
    assert.deepEqual(
      Object.keys(KNOWN_TRANSACTIONS).filter((f) => !found.includes(f)),
      [],
      'fixed: take it off KNOWN_TRANSACTIONS',
    );
  });

  it("the candidate's side writes only in commands: every write of the attempts, snapshots and equality modules takes a command context or its transaction", () => {
    const writers: string[] = [];
    for (const file of sources(ROOT)) {
      const relative = path.relative(ROOT, file);
      if (!/^modules\/(attempts|snapshots|equality)\//.test(relative)) continue;
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/export async function (\w+)\s*(?:<[^>]*>)?\(\s*(\w+)\s*:/g)) {
        const next = text.indexOf('\nexport ', match.index! + match[0].length);
        const body = text.slice(match.index! + match[0].length, next < 0 ? undefined : next);
        const writes = /\b(INSERT INTO|UPDATE \w+( AS \w+| \w)? ?SET|DELETE FROM)\b|save_answer\(/.test(body);
        if (writes && match[2] !== 'ctx' && match[2] !== 'tx') writers.push(`${relative}: ${match[1]}(${match[2]})`);
      }
    }
    assert.deepEqual(writers, [], 'a write of the candidate side outside a command: take (ctx: CommandContext, input), or the transaction of the command that calls it');
  });
});

/** The expression that starts at `start`: up to a comma or a closing bracket outside its own brackets. */
function expressionAt(text: string, start: number): string {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    const ch = text[i]!;
    if (ch === '(' || ch === '{' || ch === '[') depth++;
    else if (ch === ')' || ch === '}' || ch === ']') depth--;
    if (depth < 0 || (depth === 0 && ch === ',')) return text.slice(start, i);
  }
  return text.slice(start);
}

describe('the audit log', () => {
  it('is written by one statement, inside commands only: no hook writes an entry after the answer', () => {
    const inserts = sources(ROOT)
      .map((file) => ({ relative: path.relative(ROOT, file), text: readFileSync(file, 'utf8') }))
      .flatMap(({ relative, text }) => [...text.matchAll(/INSERT\s+INTO\s+audit_log\b/g)].map(() => relative));
    assert.deepEqual(inserts, [path.join('modules', 'audit', 'audit.ts')], 'one INSERT writes the audit log (recordAudit), called by audit(ctx, …) only');
    const audit = readFileSync(path.join(ROOT, 'modules', 'audit', 'audit.ts'), 'utf8');
    assert.deepEqual(
      [...audit.matchAll(/\brecordAudit\(/g)].length,
      [...audit.matchAll(/await recordAudit\(ctx\.tx,/g)].length + 1,
      'recordAudit is called with the command’s transaction only (its definition aside)',
    );
    assert.doesNotMatch(audit, /addHook\(/, 'the audit module registers no hook');
    // A hook that runs once the answer is decided (onSend, onResponse) cannot be in the change's
    // transaction: none may write the audit log, nor run a command that would.
    const hooks: string[] = [];
    for (const file of sources(ROOT)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/addHook\(\s*'(onSend|onResponse)'\s*,|\b(onSend|onResponse)\s*:/g)) {
        const hook = expressionAt(text, match.index! + match[0].length);
        if (/audit\w*\(|audit_log|runCommand\(/i.test(hook)) hooks.push(`${path.relative(ROOT, file)}: ${match[1] ?? match[2]}`);
      }
    }
    assert.deepEqual(hooks, [], 'a file with an onSend or onResponse hook writes audit entries: audit inside the command instead');
  });
});

/** Files that still spell the UUID pattern themselves: the console's candidates section (another helper's), and report links (lower case only: the signature is over the id as written). */
const KNOWN_UUID_COPIES: string[] = [];

describe('ids', () => {
  it('the form of a UUID is written once (src/domain/ids.ts: isUuid)', () => {
    const copies = sources(ROOT)
      .map((file) => path.relative(ROOT, file))
      .filter((relative) => relative !== path.join('domain', 'ids.ts'))
      .filter((relative) => readFileSync(path.join(ROOT, relative), 'utf8').includes('[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}'));
    assert.deepEqual(
      copies.filter((f) => !KNOWN_UUID_COPIES.includes(f)),
      [],
      'use isUuid from src/domain/ids.ts',
    );
    assert.deepEqual(
      KNOWN_UUID_COPIES.filter((f) => !copies.includes(f)),
      [],
      'fixed: take it off KNOWN_UUID_COPIES',
    );
  });
});
