// The operator CLI: a thin client of the admin API, through the typed client (client.ts). It
// never opens the database, so it works the same against a local embedded server and a remote
// cluster. The commands are in one file per group: instances, keys, assessments, candidates,
// users, webhooks, integrations (ats), single sign-on (sso), bulk invites (invite --csv).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { assessmentCommands } from './assessments.js';
import { candidateCommands } from './candidates.js';
import { type Command, type Context, type Io, type Options, ApiError, UsageError, adminClient } from './client.js';
import { instanceCommands } from './instances.js';
import { integrationCommands } from './integrations.js';
import { inviteCommands } from './invite.js';
import { keyCommands } from './keys.js';
import { ssoCommands } from './sso.js';
import { userCommands } from './users.js';
import { webhookCommands } from './webhooks.js';

const USAGE = `Usage: assessment-connect <command> [options]

Commands:
  instance create <name> [--portal-url URL] [--invite-ttl-days N] [--mail-from-name N] [--mail-from-address A] [--retention-days N|off] [--report-link-days N] [--reminder-days N|off]
                         [--default-language en|de|es] [--display-name N] [--logo FILE] [--accent-color '#RRGGBB'] [--support-email E] [--privacy-url URL]
                         [--max-webhook-endpoints N (1-1000, default 10)] [--require-two-factor on|off]
                         [--time-zone ZONE (IANA, e.g. Europe/Berlin: deadlines in e-mails; default UTC)]
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
  assessment import <folder|file.zip> --instance <name>     (the document with its media files)
  assessment import --qti <package.zip> --instance <name> [--id <id>]
                                                   publish a QTI 3.0 package; prints the import report
  assessment export <id> --qti <out.zip> --instance <name>
                                                   write the assessment as a QTI 3.0 package
  assessment list --instance <name>
  library list [--instance <name>]                 the assessment library, and what the instance offers
  library offer <id>... --instance <name> [--update]
                         publish library assessments into the instance; --update replaces other
                         content under the same id by a new version (started attempts keep theirs)
  attempt list --instance <name> --candidate <candidate-id>
  review list --instance <name>
  review score <attempt-id> <question-id> <0-100> --instance <name>
  delivery list --instance <name> [--status SENT|FAILED] [--limit N]
  delivery resend <id> --instance <name>
  user create --email E --role owner|manager|reviewer [--instance a,b] [--password-stdin]
  user list
  user disable <id> | user enable <id>
  user reset-password <id> [--password-stdin]
                  (a password the operator gives, generated or chosen, is changed by its user at first sign-in)
  user reset-2fa <id>   turn off a user's second factor (a lost phone) and end their sessions
  webhook create --instance <name> --endpoint <url> [--events a,b] [--description D]
  webhook list --instance <name>
  webhook update <id> --instance <name> [--endpoint URL] [--events a,b|all] [--description D] [--enable|--disable]
  webhook delete <id> --instance <name>
  webhook rotate-secret <id> --instance <name>
  webhook replay <id> --instance <name> (--message <msg_id> | --since ISO-8601)
  webhook attempts <id> --instance <name> [--limit N]
  ats ashby --instance <name> (--api-key KEY | --remove-key) [--send-email true|false]
                                                   the instance's Ashby API key, for Ashby's assessment.update callbacks
  ats greenhouse --instance <name> --send-email true|false
                                                   whether this service e-mails candidates Greenhouse sends (default true)
  ats workable --instance <name> --token T [--send-email true|false]
                                                   Workable's token for this instance (results to Workable's callback_url);
                                                   here --token is Workable's, not the admin token
  ats hibob --instance <name> --company-id ID --access-token T --webhook-secret S [--send-email true|false]
                                                   the HiBob company, the token for Bob's API, the secret Bob signs events with
  ats lever --instance <name> --api-key KEY --stage STAGE-ID --assessment ID --signature-token T [--send-email true|false]
                                                   Lever: entering the stage invites to the assessment; results as notes
  ats smartrecruiters --instance <name> --client-id ID --client-secret S [--send-email true|false]
                                                   SmartRecruiters' OAuth client of the customer, for status and results
  ats list --instance <name>                       settings per ATS and the newest callbacks with their state
  ats retry <callback-id> --instance <name>        send a callback to the ATS again
  sso set --instance <name> [--issuer URL] [--client-id ID] [--client-secret-stdin] [--domains a,b]
          [--jit on|off] [--default-role manager|reviewer] [--display-name N] [--password-sign-in on|off]
                                                   single sign-on (OpenID Connect) of the instance; the first time,
                                                   --issuer, --client-id, --client-secret-stdin and --domains are needed
  sso show --instance <name>                       its settings, the redirect URI to register at the provider
  sso remove --instance <name>                     turn it off (its users sign in with passwords)
  invite --csv FILE --instance <name> [--assessment A[,B]] [--map field=Header,...] [--no-email] [--no-wait] [--result FILE]
                                                   invite the candidates of a CSV file (UTF-8, a header row, at most
                                                   10,000 rows and 5 MB): prints the rows not invited, then follows the
                                                   service inviting the rest (--no-wait: leave it running) and can save
                                                   the result file; columns are matched by their headers, --map
                                                   names the others (email, firstName, lastName, externalReference,
                                                   language, extraTimePercent)
  invite status <id> --instance <name> [--result FILE]   how far a bulk invite is; its result file
  invite cancel <id> --instance <name>             stop a bulk invite; rows not yet invited are left
  candidate retake --instance <name> --candidate ID --assessment A [--no-email]
                                                   let the candidate take a completed assessment again
  report-link revoke <report-url>                  withdraw one report link (a reportUrl)
  report-link rotate-key --instance <name>         withdraw every report link of the instance
  candidate export --instance <name> (--email E | --candidate ID)   everything stored about the person, as JSON
  candidate erase --instance <name> (--email E | --candidate ID)    remove it; score records keep the id and numbers

Options for every command:
  --json         machine-readable output
  --url URL      the service (default: $ASSESSMENT_CONNECT_URL or http://localhost:$PORT, PORT=8080);
                 a webhook receiver's address is --endpoint URL (--server URL and, in webhook
                 create, --url for the receiver are older spellings that still work)
  --token T      the admin token (default: $ADMIN_TOKEN or $DATA_DIR/admin-token, DATA_DIR=./data)
  -h, --help     this text
`;

const COMMANDS: Record<string, Command> = {
  ...instanceCommands,
  ...keyCommands,
  ...assessmentCommands,
  ...candidateCommands,
  ...userCommands,
  ...webhookCommands,
  ...integrationCommands,
  ...ssoCommands,
  ...inviteCommands,
};

function resolveToken(given: string | undefined, env: Io['env']): string {
  if (given) return given;
  if (env.ADMIN_TOKEN) return env.ADMIN_TOKEN;
  const file = path.resolve(env.DATA_DIR || './data', 'admin-token');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    throw new UsageError(`no admin token: set ADMIN_TOKEN, pass --token, or run where ${file} exists (npm start writes it)`);
  }
}

/**
 * The service: --url, as in every command. --server is the older spelling (a note says so). In
 * `webhook create` without --endpoint, --url is the receiver (the older spelling, see webhooks.ts).
 */
function serviceUrl(io: Io, command: string, values: Options): string {
  if (typeof values.server === 'string') io.stderr.write('note: --server is deprecated; use --url URL (the service, in every command)\n');
  const url = command === 'webhook create' && values.endpoint === undefined ? undefined : values.url;
  const given = typeof values.server === 'string' ? values.server : typeof url === 'string' ? url : undefined;
  return given ?? io.env.ASSESSMENT_CONNECT_URL ?? `http://localhost:${io.env.PORT || 8080}`;
}

/**
 * The process's own streams and environment. Standard input is only touched when a command reads
 * it (--password-stdin, --client-secret-stdin), as before: asking for process.stdin opens it.
 */
const processIo = (): Io => ({
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: { [Symbol.asyncIterator]: () => process.stdin[Symbol.asyncIterator]() },
  env: process.env,
});

/** One command line: its exit code (0 done, 1 failed, 2 a mistake in the command line). */
export async function run(argv: string[], io: Io = processIo()): Promise<number> {
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
        endpoint: { type: 'string' },
        events: { type: 'string' },
        description: { type: 'string' },
        enable: { type: 'boolean' },
        disable: { type: 'boolean' },
        message: { type: 'string' },
        since: { type: 'string' },
        'report-link-days': { type: 'string' },
        'max-webhook-endpoints': { type: 'string' },
        'require-two-factor': { type: 'string' },
        'time-zone': { type: 'string' },
        'reminder-days': { type: 'string' },
        'default-language': { type: 'string' },
        assessment: { type: 'string' },
        'no-email': { type: 'boolean' },
        update: { type: 'boolean' },
        'display-name': { type: 'string' },
        logo: { type: 'string' },
        'no-logo': { type: 'boolean' },
        'accent-color': { type: 'string' },
        'support-email': { type: 'string' },
        'privacy-url': { type: 'string' },
        'api-key': { type: 'string' },
        'company-id': { type: 'string' },
        'access-token': { type: 'string' },
        'webhook-secret': { type: 'string' },
        stage: { type: 'string' },
        'signature-token': { type: 'string' },
        'client-secret': { type: 'string' },
        'remove-key': { type: 'boolean' },
        'send-email': { type: 'string' },
        issuer: { type: 'string' },
        'client-id': { type: 'string' },
        'client-secret-stdin': { type: 'boolean' },
        domains: { type: 'string' },
        jit: { type: 'string' },
        'default-role': { type: 'string' },
        'password-sign-in': { type: 'string' },
        csv: { type: 'string' },
        map: { type: 'string' },
        'no-wait': { type: 'boolean' },
        result: { type: 'string' },
        qti: { type: 'string' },
      },
    });
  } catch (error) {
    io.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help || positionals.length === 0) {
    io.stdout.write(USAGE);
    return values.help ? 0 : 2;
  }
  const name = positionals.slice(0, 2).join(' ');
  const command = COMMANDS[name];
  if (!command) {
    io.stderr.write(`unknown command: ${name}\n\n${USAGE}`);
    return 2;
  }
  const json = values.json === true;
  try {
    const url = serviceUrl(io, name, values);
    // In `ats workable`, --token is Workable's token for the instance, not the admin token.
    const adminToken = name === 'ats workable' ? undefined : values.token;
    const ctx: Context = { url, client: adminClient(url, resolveToken(adminToken, io.env)), json, io };
    const result = await command(ctx, positionals.slice(2), values);
    io.stdout.write(json ? `${JSON.stringify(result.data, null, 2)}\n` : `${result.text}\n`);
    return 0;
  } catch (error) {
    if (json && error instanceof ApiError) io.stdout.write(`${JSON.stringify(error.body, null, 2)}\n`);
    io.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}
