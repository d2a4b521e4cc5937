// The deployment files: the Containerfile runs what `npm start` runs, as a user that is not root,
// with a health check on /healthz and its base a build argument defaulting to the public Node
// image; `kubectl kustomize deploy/kubernetes` renders offline, with the Deployment's probes,
// DATABASE_URL from a Secret, resources, and a migration Job running a command the build has.
// (deploy/smoke-image.sh, run by .ci/run, builds the image and runs the service in it.)
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { announceSkip, onPath } from './harness.js';

const containerfile = readFileSync('Containerfile', 'utf8');
const startScript = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts.start!;

describe('the Containerfile', () => {
  it('takes its base as a build argument, the public Node image by default', () => {
    assert.match(containerfile, /^ARG BASE=docker\.io\/library\/node:20[\w.-]*$/m);
    assert.equal(containerfile.match(/^FROM \$\{BASE\}/gm)?.length, 2, 'two stages, both on the base');
  });

  it("runs `npm start`'s command as a user that is not root, with a health check on /healthz", () => {
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(containerfile)![1]!) as string[];
    assert.equal(cmd.join(' '), startScript.replace(/^exec /, ''));
    const user = /^USER (\S+)$/m.exec(containerfile)?.[1];
    assert.ok(user && !/^(0|root)(:|$)/.test(user), `USER ${user}`);
    assert.match(containerfile, /^HEALTHCHECK .*\n?.*\/healthz/m);
    assert.match(containerfile, /npm prune --omit=dev/, 'production dependencies only');
  });
});

const kubectl = onPath('kubectl');
describe('deploy/kubernetes', { skip: kubectl ? false : announceSkip('deploy/kubernetes', 'kubectl is not installed') }, () => {
  it('renders offline with kubectl kustomize: probes, the Secret, resources, a migration Job', () => {
    const rendered = execFileSync('kubectl', ['kustomize', 'deploy/kubernetes'], { encoding: 'utf8' });
    const objects = parseAllDocuments(rendered).map((d) => d.toJS()) as { kind: string; spec: Record<string, never> }[];
    const kinds = objects.map((o) => o.kind).sort();
    assert.deepEqual(kinds, ['ConfigMap', 'Deployment', 'Ingress', 'Job', 'Namespace', 'Secret', 'Service']);
    const of = (kind: string) => objects.find((o) => o.kind === kind)!.spec as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const app = of('Deployment').template.spec.containers[0];
    assert.equal(app.livenessProbe.httpGet.path, '/healthz');
    assert.equal(app.startupProbe.httpGet.path, '/healthz');
    assert.equal(app.readinessProbe.httpGet.path, '/readyz', 'ready: PostgreSQL reachable and not draining');
    assert.ok(app.resources.requests.cpu && app.resources.limits.memory);
    const secret = objects.find((o) => o.kind === 'Secret') as unknown as { metadata: { name: string } };
    assert.deepEqual(app.env.find((e: { name: string }) => e.name === 'DATABASE_URL').valueFrom.secretKeyRef, { name: secret.metadata.name, key: 'DATABASE_URL' });
    assert.equal(of('Deployment').template.spec.securityContext.runAsNonRoot, true);
    // The Service reaches the server's pods, not the migration's.
    assert.equal(of('Service').selector['app.kubernetes.io/component'], 'server');
    const migrate = of('Job').template.spec.containers[0];
    assert.deepEqual(migrate.command, ['node', 'dist/migrate-main.js']);
    assert.ok(existsSync('src/migrate-main.ts'), 'the build has the migration command');
  });
});
