// Each table is written by the one module that owns it: other code calls that module's
// functions. Read from the source itself, so a new raw INSERT, UPDATE or DELETE of another
// module's table fails here. (Reads across tables are allowed: a report joins what it shows.)
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
  candidates: 'modules/candidates',
  invitations: 'modules/invitations',
  invite_links: 'modules/invitations',
  deliveries: 'modules/invitations',
  idempotency_keys: 'modules/invitations',
  attempts: 'modules/attempts',
  answers: 'modules/attempts',
  proctor_signals: 'modules/attempts',
  attempt_feedback: 'modules/attempts',
  portal_sessions: 'portal',
  audit_log: 'modules/audit',
  users: 'modules/users',
  user_instances: 'modules/users',
  console_sessions: 'modules/users',
  webhook_endpoints: 'modules/webhooks',
  outbox_events: 'modules/webhooks',
  webhook_deliveries: 'modules/webhooks',
  webhook_attempts: 'modules/webhooks',
  schema_migrations: 'db',
  server_secrets: 'modules/scores',
  report_link_keys: 'modules/reports',
  revoked_report_links: 'modules/reports',
};

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
});
