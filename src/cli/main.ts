// The operator CLI: a thin client of the admin API. It never opens the database, so
// it works the same against a local embedded server and a remote cluster.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { checkLogo } from '../modules/tenants/branding.js';
import { LANGUAGES, isLang } from '../i18n/i18n.js';

const USAGE = `Usage: assessment-connect <command> [options]

Commands:
  instance create <name> [--portal-url URL] [--invite-ttl-days N] [--mail-from-name N] [--mail-from-address A] [--retention-days N|off] [--report-link-days N] [--reminder-days N|off]
                         [--default-language en|de|es] [--display-name N] [--logo FILE] [--accent-color '#RRGGBB'] [--support-email E] [--privacy-url URL]
  instance update <name> (the same options) [--logo none | --no-logo]
                  Branding, what candidates see of the company: --display-name (1-100 characters), --logo
                  (a PNG, JPEG or WebP file of at most 200 KB; none removes it), --accent-color (must have
                  4.5:1 contrast against white), --support-email, --privacy-url (https://); '' clears a setting
  instance list
  key create --instance <name>[,<name>...] [--label L] [--rate-limit N] [--expires-at ISO-8601]
  key update <id> [--rate-limit N|default] [--label L]
  key list [--instance <name>]
  key revoke <id>
  audit list [--limit N] [--before ID]
  assessment import <file.yaml|file.json> --instance <name>
  assessment list --instance <name>
  attempt list --instance <name> --candidate <candidate-id>
  review list --instance <name>
  review score <attempt-id> <question-id> <0-100> --instance <name>
  delivery list --instance <name> [--status SENT|FAILED] [--limit N]
  delivery resend <id> --instance <name>
  user create --email E --role owner|manager|reviewer [--instance a,b] [--password-stdin]
  user list
  user disable <id> | user enable <id>
  user reset-password <id> [--password-stdin]
  webhook create --instance <name> --url <url> [--events a,b] [--description D]
  webhook list --instance <name>
  webhook update <id> --instance <name> [--url U] [--events a,b|all] [--enable|--disable]
  webhook delete <id> --instance <name>
  webhook rotate-secret <id> --instance <name>
  webhook replay <id> --instance <name> (--message <msg_id> | --since ISO-8601)
  webhook attempts <id> --instance <name> [--limit N]
  candidate retake --instance <name> --candidate ID --assessment A [--no-email]
                                                   let the candidate take a completed assessment again
  report-link revoke <report-url>                  withdraw one report link (a reportUrl)
  report-link rotate-key --instance <name>         withdraw every report link of the instance
  candidate export --instance <name> (--email E | --candidate ID)   everything stored about the person, as JSON
  candidate erase --instance <name> (--email E | --candidate ID)    remove it; score records keep the id and numbers

Options for every command:
  --json         machine-readable output
  --url URL      the server (default: $ASSESSMENT_CONNECT_URL or http://localhost:$PORT, PORT=8080);
                 for webhook commands --url is the endpoint, and the server is --server URL
  --server URL   the server, for every command
  --token T      the admin token (default: $ADMIN_TOKEN or $DATA_DIR/admin-token, DATA_DIR=./data)
  -h, --help     this text
`;

class UsageError extends Error {}
class ApiError extends Error {
  constructor(
    message: string,
    readonly body: unknown,
  ) {
    super(message);
  }
}

interface Context {
  url: string;
  token: string;
  json: boolean;
}

type Options = Record<string, string | boolean | undefined>;

function resolveToken(given: string | undefined): string {
  if (given) return given;
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  const file = path.resolve(process.env.DATA_DIR || './data', 'admin-token');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new UsageError(`no admin token: set ADMIN_TOKEN, pass --token, or run where ${file} exists (npm start writes it)`);
  }
}

async function call(ctx: Context, method: string, route: string, body?: { json?: unknown; raw?: string | Buffer; type?: string }): Promise<unknown> {
  const headers: Record<string, string> = { authorization: `Bearer ${ctx.token}`, accept: 'application/json' };
  let payload: string | Blob | undefined;
  if (body?.json !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  } else if (body?.raw !== undefined) {
    headers['content-type'] = body.type ?? 'application/octet-stream';
    payload = typeof body.raw === 'string' ? body.raw : new Blob([new Uint8Array(body.raw)]);
  }
  let response: Response;
  try {
    response = await fetch(new URL(route, ctx.url), { method, headers, body: payload, signal: AbortSignal.timeout(30_000) });
  } catch (error) {
    throw new Error(`cannot reach the server at ${ctx.url} (${(error as Error).cause ?? (error as Error).message}); is it running (npm start)?`);
  }
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  if (!response.ok) {
    const problem = parsed as { detail?: string; errors?: { name: string; line?: number; detail: string }[] };
    const lines = [`${response.status} ${problem.detail ?? text}`];
    for (const e of problem.errors ?? []) lines.push(`  ${e.line ? `line ${e.line}: ` : ''}${e.name}: ${e.detail}`);
    throw new ApiError(lines.join('\n'), parsed);
  }
  return parsed;
}

function table(rows: Record<string, unknown>[], columns: string[]): string {
  if (rows.length === 0) return '(none)';
  const cell = (value: unknown) => (value === null || value === undefined ? '-' : Array.isArray(value) ? value.join(',') : value instanceof Object ? JSON.stringify(value) : String(value));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(columns), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))].join('\n');
}

function required(options: Options, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

function positiveInteger(options: Options, name: string): number | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`--${name} must be a positive integer`);
  return n;
}

/** A number of days in a range, or `off` (null). */
function daysOrOff(options: Options, name: string, max: number): number | null | undefined {
  const value = options[name];
  if (value === undefined) return undefined;
  if (value === 'off') return null;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`--${name} must be a number of days from 1 to ${max}, or off`);
  return n;
}

/** A branding text option: undefined when not given, null when given empty (clears it). */
function textOrClear(options: Options, name: string): string | null | undefined {
  const value = options[name];
  if (typeof value !== 'string') return undefined;
  return value.trim() === '' ? null : value;
}

const LOGO_FILE_TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.webp': 'image/webp', '.svg': 'image/svg+xml' };

/**
 * --logo FILE, --logo none or --no-logo: read and checked here (size, type by its bytes) before
 * anything is sent, so that a bad file changes nothing. undefined: no logo option given.
 */
function logoOption(options: Options): { bytes: Buffer; type: string } | 'remove' | undefined {
  const file = options.logo;
  if (options['no-logo'] === true) {
    if (file !== undefined) throw new UsageError('give --logo FILE or --no-logo, not both');
    return 'remove';
  }
  if (file === undefined) return undefined;
  if (typeof file !== 'string' || file === '') throw new UsageError('--logo needs a file (or none)');
  if (file === 'none') return 'remove';
  const type = LOGO_FILE_TYPES[path.extname(file).toLowerCase()];
  if (!type) throw new UsageError(`--logo ${file}: a logo is a .png, .jpg, .jpeg or .webp file`);
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
  const checked = checkLogo(type, bytes);
  if ('detail' in checked) throw new UsageError(`--logo ${file}: ${checked.detail}`);
  return { bytes, type };
}

/** Sets or removes the logo of an instance after its settings are saved. */
async function applyLogo(ctx: Context, name: string, logo: ReturnType<typeof logoOption>, data: Record<string, unknown>): Promise<Record<string, unknown>> {
  if (logo === undefined) return data;
  const route = `/admin/v1/instances/${encodeURIComponent(name)}/logo`;
  return (await (logo === 'remove' ? call(ctx, 'DELETE', route) : call(ctx, 'PUT', route, { raw: logo.bytes, type: logo.type }))) as Record<string, unknown>;
}

function instanceSettings(options: Options) {
  return {
    displayName: textOrClear(options, 'display-name'),
    accentColor: textOrClear(options, 'accent-color'),
    supportEmail: textOrClear(options, 'support-email'),
    privacyUrl: textOrClear(options, 'privacy-url'),
    portalUrl: options['portal-url'],
    inviteTtlDays: positiveInteger(options, 'invite-ttl-days'),
    mailFromName: options['mail-from-name'],
    mailFromAddress: options['mail-from-address'],
    retentionDays: daysOrOff(options, 'retention-days', 3650),
    reportLinkDays: positiveInteger(options, 'report-link-days'),
    reminderDays: daysOrOff(options, 'reminder-days', 60),
    defaultLanguage: defaultLanguage(options),
  };
}

/** --default-language: a language with a catalogue (the server checks the same). */
function defaultLanguage(options: Options): string | undefined {
  const value = options['default-language'];
  if (value === undefined) return undefined;
  if (!isLang(value)) throw new UsageError(`--default-language must be a language with a catalogue: ${Object.keys(LANGUAGES).join(', ')}`);
  return value;
}

/** --email or --candidate, exactly one. */
function candidateSelector(options: Options): { email: string } | { candidateId: string } {
  const email = options.email;
  const candidate = options.candidate;
  if ((typeof email === 'string') === (typeof candidate === 'string')) throw new UsageError('give exactly one of --email E and --candidate ID');
  if (typeof email === 'string') {
    if (email === '') throw new UsageError('--email needs an address');
    return { email };
  }
  if (candidate === '') throw new UsageError('--candidate needs an id');
  return { candidateId: candidate as string };
}

type Command = (ctx: Context, args: string[], options: Options) => Promise<{ data: unknown; text: string }>;

const COMMANDS: Record<string, Command> = {
  async 'instance create'(ctx, [name], options) {
    if (!name) throw new UsageError('instance create needs a name');
    const logo = logoOption(options);
    if (logo === 'remove') throw new UsageError('a new instance has no logo to remove');
    const settings = instanceSettings(options);
    const data = await applyLogo(ctx, name, logo, (await call(ctx, 'POST', '/admin/v1/instances', { json: { name, ...settings } })) as Record<string, unknown>);
    return { data, text: `Created instance ${String(data.name)} (shown to candidates as ${String(data.company)})` };
  },
  async 'instance update'(ctx, [name], options) {
    if (!name) throw new UsageError('instance update needs a name');
    const logo = logoOption(options);
    const settings = instanceSettings(options);
    const changes = Object.values(settings).some((v) => v !== undefined);
    const route = `/admin/v1/instances/${encodeURIComponent(name)}`;
    const saved = changes || logo === undefined ? ((await call(ctx, 'PATCH', route, { json: settings })) as Record<string, unknown>) : {};
    const data = await applyLogo(ctx, name, logo, saved);
    const logoNote = logo === undefined ? '' : logo === 'remove' ? '; logo removed' : `; logo at ${String(data.logoUrl)}`;
    return { data, text: `Updated instance ${String(data.name)} (shown to candidates as ${String(data.company)})${logoNote}` };
  },
  async 'instance list'(ctx) {
    const data = (await call(ctx, 'GET', '/admin/v1/instances')) as Record<string, unknown>[];
    return { data, text: table(data, ['name', 'displayName', 'portalUrl', 'inviteTtlDays', 'reminderDays', 'retentionDays', 'reportLinkDays', 'defaultLanguage', 'createdAt']) };
  },
  async 'key create'(ctx, _args, options) {
    const data = (await call(ctx, 'POST', '/admin/v1/keys', {
      json: {
        instances: required(options, 'instance').split(',').map((s) => s.trim()).filter(Boolean),
        label: options.label,
        rateLimit: positiveInteger(options, 'rate-limit'),
        expiresAt: options['expires-at'],
      },
    })) as Record<string, unknown>;
    return {
      data,
      text: [
        `Created key ${String(data.id)} for ${(data.instances as string[]).join(', ')}.`,
        'The key is shown this once; store it now:',
        '',
        `  ${String(data.key)}`,
        '',
      ].join('\n'),
    };
  },
  async 'key update'(ctx, [id], options) {
    if (!id) throw new UsageError('key update needs the key id (key_…), as shown by key list');
    const change: Record<string, unknown> = {};
    if (options['rate-limit'] === 'default') change.rateLimit = null;
    else if (options['rate-limit'] !== undefined) change.rateLimit = positiveInteger(options, 'rate-limit');
    if (typeof options.label === 'string') change.label = options.label;
    if (Object.keys(change).length === 0) throw new UsageError('key update needs --rate-limit N (or default) or --label L');
    const data = (await call(ctx, 'PATCH', `/admin/v1/keys/${encodeURIComponent(id)}`, { json: change })) as Record<string, unknown>;
    const limit = data.rateLimit === null ? 'the service default' : `${String(data.rateLimit)} requests per minute`;
    return { data, text: `Updated ${String(data.id)}: rate limit ${limit}` };
  },
  async 'audit list'(ctx, _args, options) {
    const query = new URLSearchParams();
    if (options.limit !== undefined) query.set('limit', String(positiveInteger(options, 'limit')));
    if (typeof options.before === 'string') query.set('before', options.before);
    const data = (await call(ctx, 'GET', `/admin/v1/audit?${query}`)) as Record<string, unknown>[];
    return { data, text: table(data, ['id', 'at', 'action', 'target', 'status', 'clientIp', 'requestId']) };
  },
  async 'key list'(ctx, _args, options) {
    const query = typeof options.instance === 'string' ? `?instance=${encodeURIComponent(options.instance)}` : '';
    const data = (await call(ctx, 'GET', `/admin/v1/keys${query}`)) as Record<string, unknown>[];
    return { data, text: table(data, ['id', 'prefix', 'label', 'instances', 'rateLimit', 'expiresAt', 'revokedAt', 'lastUsedAt']) };
  },
  async 'key revoke'(ctx, [id]) {
    if (!id) throw new UsageError('key revoke needs the key id (key_…), as shown by key list');
    const data = (await call(ctx, 'POST', `/admin/v1/keys/${encodeURIComponent(id)}/revoke`)) as Record<string, unknown>;
    return { data, text: `Revoked ${String(data.id)} at ${String(data.revokedAt)}` };
  },
  async 'assessment import'(ctx, [file], options) {
    if (!file) throw new UsageError('assessment import needs a file');
    const instance = required(options, 'instance');
    let raw: string;
    try {
      raw = readFileSync(file, 'utf8');
    } catch (error) {
      throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
    }
    const type = file.endsWith('.json') ? 'application/json' : 'application/yaml';
    const data = (await call(ctx, 'POST', `/admin/v1/instances/${encodeURIComponent(instance)}/assessments`, { raw, type })) as Record<string, unknown>;
    const verb = { created: 'Published', updated: 'Published a new version of', unchanged: 'Unchanged:' }[String(data.outcome)] ?? String(data.outcome);
    return { data, text: `${verb} ${String(data.id)} (version ${String(data.version)}) in ${instance}` };
  },
  async 'assessment list'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const data = (await call(ctx, 'GET', `/admin/v1/instances/${encodeURIComponent(instance)}/assessments`)) as Record<string, unknown>[];
    return { data, text: table(data, ['id', 'name', 'version', 'durationMinutes', 'questionCount', 'typingTest', 'passScore', 'lowPassScore']) };
  },
  async 'attempt list'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const candidate = required(options, 'candidate');
    const data = (await call(ctx, 'GET', `/admin/v1/instances/${encodeURIComponent(instance)}/candidates/${encodeURIComponent(candidate)}/attempts`)) as Record<string, unknown>[];
    const text = data
      .map((a) =>
        [
          `${String(a.assessmentId)} (version ${String(a.version)}): started ${String(a.startedAt)}, ${a.finishedAt ? `ended ${String(a.finishedAt)} (${String(a.endReason)})` : `open until ${String(a.deadlineAt)}`}`,
          `  red flag: ${a.redFlag ? `yes: ${(a.redFlagReasons as string[]).join('; ')}` : 'no'}${a.typingNetWpm === null ? '' : `; typing ${String(a.typingNetWpm)} wpm, ${String(a.typingAccuracy)}% accurate`}`,
          ...(a.signals as { at: string; kind: string; detail: string; source: string }[]).map((s) => `  ${s.at}  ${s.source.padEnd(7)}  ${s.kind}${s.detail ? `: ${s.detail}` : ''}`),
        ].join('\n'),
      )
      .join('\n\n');
    return { data, text: text || '(no attempts)' };
  },
  async 'review list'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const data = (await call(ctx, 'GET', `/admin/v1/instances/${encodeURIComponent(instance)}/reviews`)) as Record<string, unknown>[];
    const text = data
      .map((r) => `attempt ${String(r.attemptId)}  question ${String(r.questionId)}  (${String(r.assessmentId)}, candidate ${String(r.candidateId)})\n${String(r.prompt)}\n> ${String(r.answer).replace(/\n/g, '\n> ')}`)
      .join('\n\n');
    return { data, text: text || '(nothing awaits review)' };
  },
  async 'review score'(ctx, [attemptId, questionId, score], options) {
    const instance = required(options, 'instance');
    if (!attemptId || !questionId || score === undefined) throw new UsageError('review score needs <attempt-id> <question-id> <0-100>');
    const value = Number(score);
    if (!Number.isFinite(value) || value < 0 || value > 100) throw new UsageError('the score is a percentage from 0 to 100');
    const data = (await call(ctx, 'POST', `/admin/v1/instances/${encodeURIComponent(instance)}/reviews`, { json: { attemptId, questionId, score: value } })) as Record<string, unknown>;
    return { data, text: `Scored. The attempt is now ${String(data.scoreStatus)} (total ${String(data.totalScore)}).` };
  },
  async 'delivery list'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const query = new URLSearchParams();
    if (typeof options.status === 'string') query.set('status', options.status);
    if (options.limit !== undefined) query.set('limit', String(positiveInteger(options, 'limit')));
    const data = (await call(ctx, 'GET', `/admin/v1/instances/${encodeURIComponent(instance)}/deliveries?${query}`)) as Record<string, unknown>[];
    return { data, text: table(data, ['id', 'attemptedAt', 'status', 'recipient', 'durationMs', 'response']) };
  },
  async 'candidate export'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const data = await call(ctx, 'POST', `/admin/v1/instances/${encodeURIComponent(instance)}/candidates/export`, { json: candidateSelector(options) });
    // The export is a JSON document either way.
    return { data, text: JSON.stringify(data, null, 2) };
  },
  async 'candidate retake'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const candidate = required(options, 'candidate');
    const assessment = required(options, 'assessment');
    const data = (await call(
      ctx,
      'POST',
      `/admin/v1/instances/${encodeURIComponent(instance)}/candidates/${encodeURIComponent(candidate)}/invitations/${encodeURIComponent(assessment)}/retake`,
      { json: { email: options['no-email'] !== true } },
    )) as Record<string, unknown>;
    const mail = data.invitationStatus === undefined ? 'no e-mail sent' : `e-mail ${String(data.invitationStatus)}`;
    return { data, text: `The candidate may take ${assessment} again (${mail}); the earlier attempt stays in the history.\nTheir link: ${String(data.link)}` };
  },
  async 'report-link revoke'(ctx, [url]) {
    if (!url) throw new UsageError('report-link revoke needs the link (quote it: it has & in it)');
    const data = (await call(ctx, 'POST', '/admin/v1/report-links/revoke', { json: { url } })) as Record<string, unknown>;
    return { data, text: `Withdrawn: the report link of candidate ${String(data.candidateId)} for ${String(data.assessmentId)} opens nothing from now on` };
  },
  async 'report-link rotate-key'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const data = (await call(ctx, 'POST', `/admin/v1/instances/${encodeURIComponent(instance)}/report-links/rotate-key`)) as Record<string, unknown>;
    return { data, text: `Every report link of ${instance} made before ${String(data.rotatedAt)} opens nothing now; new links are signed with a new key` };
  },
  async 'candidate erase'(ctx, _args, options) {
    const instance = required(options, 'instance');
    const data = (await call(ctx, 'POST', `/admin/v1/instances/${encodeURIComponent(instance)}/candidates/erase`, { json: candidateSelector(options) })) as Record<string, unknown>;
    const text = data.erased
      ? `Erased candidate ${String(data.id)} in ${instance} (${String(data.mailFilesDeleted)} e-mail files deleted); score records keep the id and numbers only.`
      : `Candidate ${String(data.id)} in ${instance} was erased already (at ${String(data.erasedAt)}); nothing changed.`;
    return { data, text };
  },
  async 'delivery resend'(ctx, [id], options) {
    const instance = required(options, 'instance');
    if (!id) throw new UsageError('delivery resend needs the delivery id, as shown by delivery list');
    const data = (await call(ctx, 'POST', `/admin/v1/instances/${encodeURIComponent(instance)}/deliveries/${encodeURIComponent(id)}/resend`)) as Record<string, unknown>;
    return { data, text: `Sent again as delivery ${String(data.id)}: ${String(data.status)} (${String(data.response)})` };
  },
  async 'user create'(ctx, _args, options) {
    const password = options['password-stdin'] ? await passwordFromStdin() : undefined;
    const instances = typeof options.instance === 'string' ? options.instance.split(',').map((s) => s.trim()).filter(Boolean) : undefined;
    const data = (await call(ctx, 'POST', '/admin/v1/users', { json: { email: required(options, 'email'), role: required(options, 'role'), instances, password } })) as Record<string, unknown>;
    return { data, text: userCreated(data, 'Created') };
  },
  async 'user list'(ctx) {
    const data = (await call(ctx, 'GET', '/admin/v1/users')) as Record<string, unknown>[];
    return { data, text: table(data, ['id', 'email', 'role', 'instances', 'disabled', 'createdAt']) };
  },
  async 'user disable'(ctx, [id]) {
    if (!id) throw new UsageError('user disable needs the user id, as shown by user list');
    const data = (await call(ctx, 'POST', `/admin/v1/users/${encodeURIComponent(id)}/disable`)) as Record<string, unknown>;
    return { data, text: `Disabled ${String(data.email)}; their console sessions have ended` };
  },
  async 'user enable'(ctx, [id]) {
    if (!id) throw new UsageError('user enable needs the user id, as shown by user list');
    const data = (await call(ctx, 'POST', `/admin/v1/users/${encodeURIComponent(id)}/enable`)) as Record<string, unknown>;
    return { data, text: `Enabled ${String(data.email)}` };
  },
  async 'user reset-password'(ctx, [id], options) {
    if (!id) throw new UsageError('user reset-password needs the user id, as shown by user list');
    const password = options['password-stdin'] ? await passwordFromStdin() : undefined;
    const data = (await call(ctx, 'POST', `/admin/v1/users/${encodeURIComponent(id)}/reset-password`, { json: password === undefined ? {} : { password } })) as Record<string, unknown>;
    return { data, text: userCreated(data, 'Reset the password of') };
  },
};

const webhookPath = (options: Options, id?: string, tail = '') =>
  `/admin/v1/instances/${encodeURIComponent(required(options, 'instance'))}/webhooks${id ? `/${encodeURIComponent(id)}` : ''}${tail}`;
const eventList = (value: string | boolean | undefined) =>
  typeof value === 'string' ? (value === 'all' ? [] : value.split(',').map((s) => s.trim()).filter(Boolean)) : undefined;
const needId = (id: string | undefined, command: string) => {
  if (!id) throw new UsageError(`webhook ${command} needs the endpoint id (ep_…), as shown by webhook list`);
  return id;
};

Object.assign(COMMANDS, {
  async 'webhook create'(ctx: Context, _args: string[], options: Options) {
    const data = (await call(ctx, 'POST', webhookPath(options), { json: { url: required(options, 'url'), events: eventList(options.events), description: options.description } })) as Record<string, unknown>;
    return {
      data,
      text: [`Created webhook endpoint ${String(data.id)} for ${String(data.url)} (${(data.events as string[]).join(', ') || 'every event'}).`, 'Its signing secret is shown this once; store it in the receiver now:', '', `  ${String(data.secret)}`, ''].join('\n'),
    };
  },
  async 'webhook list'(ctx: Context, _args: string[], options: Options) {
    const data = (await call(ctx, 'GET', webhookPath(options))) as Record<string, unknown>[];
    return { data, text: table(data, ['id', 'url', 'events', 'disabled', 'disabledReason', 'failingSince', 'createdAt']) };
  },
  async 'webhook update'(ctx: Context, [id]: string[], options: Options) {
    const change: Record<string, unknown> = {};
    if (typeof options.url === 'string') change.url = options.url;
    if (options.events !== undefined) change.events = eventList(options.events);
    if (typeof options.description === 'string') change.description = options.description;
    if (options.enable) change.enabled = true;
    if (options.disable) change.enabled = false;
    if (Object.keys(change).length === 0) throw new UsageError('webhook update needs --url, --events, --description, --enable or --disable');
    const data = (await call(ctx, 'PATCH', webhookPath(options, needId(id, 'update')), { json: change })) as Record<string, unknown>;
    return { data, text: `Updated ${String(data.id)}: ${String(data.url)}, ${data.disabled ? `disabled (${String(data.disabledReason)})` : 'enabled'}` };
  },
  async 'webhook delete'(ctx: Context, [id]: string[], options: Options) {
    await call(ctx, 'DELETE', webhookPath(options, needId(id, 'delete')));
    return { data: { id, deleted: true }, text: `Deleted ${String(id)}` };
  },
  async 'webhook rotate-secret'(ctx: Context, [id]: string[], options: Options) {
    const data = (await call(ctx, 'POST', webhookPath(options, needId(id, 'rotate-secret'), '/rotate-secret'))) as Record<string, unknown>;
    return { data, text: [`New secret for ${String(data.id)}; the old one keeps signing too for 24 hours:`, '', `  ${String(data.secret)}`, ''].join('\n') };
  },
  async 'webhook replay'(ctx: Context, [id]: string[], options: Options) {
    const body = typeof options.message === 'string' ? { messageId: options.message } : typeof options.since === 'string' ? { since: options.since } : undefined;
    if (!body) throw new UsageError('webhook replay needs --message <msg_id> or --since ISO-8601');
    const data = (await call(ctx, 'POST', webhookPath(options, needId(id, 'replay'), '/replay'), { json: body })) as Record<string, unknown>;
    return { data, text: `Scheduled ${String(data.scheduled)} message(s) for delivery now` };
  },
  async 'webhook attempts'(ctx: Context, [id]: string[], options: Options) {
    const query = options.limit !== undefined ? `?limit=${positiveInteger(options, 'limit')}` : '';
    const data = (await call(ctx, 'GET', webhookPath(options, needId(id, 'attempts'), `/attempts${query}`))) as Record<string, unknown>[];
    return { data, text: table(data, ['at', 'type', 'messageId', 'statusCode', 'durationMs', 'deliveryStatus', 'response']) };
  },
} satisfies Record<string, Command>);

function userCreated(data: Record<string, unknown>, verb: string): string {
  const lines = [`${verb} ${String(data.email)} (${String(data.role)}${(data.instances as string[]).length ? ` of ${(data.instances as string[]).join(', ')}` : ''}), id ${String(data.id)}.`];
  if (typeof data.password === 'string') lines.push('One-time password, shown this once (sign in at /console/ and keep it safe):', '', `  ${data.password}`, '');
  return lines.join('\n');
}

/** The first line of standard input, so that a password never appears in the process list or shell history. */
async function passwordFromStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += String(chunk);
    if (text.includes('\n')) break;
  }
  const password = text.split(/\r?\n/)[0] ?? '';
  if (!password) throw new UsageError('--password-stdin: no password on standard input');
  return password;
}

export async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        url: { type: 'string' },
        token: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
        instance: { type: 'string' },
        label: { type: 'string' },
        'rate-limit': { type: 'string' },
        'expires-at': { type: 'string' },
        'portal-url': { type: 'string' },
        'invite-ttl-days': { type: 'string' },
        candidate: { type: 'string' },
        'retention-days': { type: 'string' },
        'mail-from-name': { type: 'string' },
        'mail-from-address': { type: 'string' },
        status: { type: 'string' },
        limit: { type: 'string' },
        before: { type: 'string' },
        email: { type: 'string' },
        role: { type: 'string' },
        'password-stdin': { type: 'boolean' },
        server: { type: 'string' },
        events: { type: 'string' },
        description: { type: 'string' },
        enable: { type: 'boolean' },
        disable: { type: 'boolean' },
        message: { type: 'string' },
        since: { type: 'string' },
        'report-link-days': { type: 'string' },
        'reminder-days': { type: 'string' },
        'default-language': { type: 'string' },
        assessment: { type: 'string' },
        'no-email': { type: 'boolean' },
        'display-name': { type: 'string' },
        logo: { type: 'string' },
        'no-logo': { type: 'boolean' },
        'accent-color': { type: 'string' },
        'support-email': { type: 'string' },
        'privacy-url': { type: 'string' },
      },
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    process.stdout.write(USAGE);
    return values.help ? 0 : 2;
  }
  const name = positionals.slice(0, 2).join(' ');
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`unknown command: ${name}\n\n${USAGE}`);
    return 2;
  }
  const json = values.json === true;
  try {
    const ctx: Context = {
      // `webhook` commands take --url as the endpoint's address, so the server is --server there.
      url: values.server ?? (name.startsWith('webhook ') ? undefined : values.url) ?? process.env.ASSESSMENT_CONNECT_URL ?? `http://localhost:${process.env.PORT || 8080}`,
      token: resolveToken(values.token),
      json,
    };
    const result = await command(ctx, positionals.slice(2), values);
    process.stdout.write(json ? `${JSON.stringify(result.data, null, 2)}\n` : `${result.text}\n`);
    return 0;
  } catch (error) {
    if (json && error instanceof ApiError) process.stdout.write(`${JSON.stringify(error.body, null, 2)}\n`);
    process.stderr.write(`error: ${(error as Error).message}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}
