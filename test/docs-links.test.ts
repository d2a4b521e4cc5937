// The README and docs/*.md link to each other and to files of the repository: every relative link
// must name a file that exists, and every #anchor a heading of the file it points into (GitHub's
// rule: lowercase, punctuation removed, spaces to `-`, a repeated heading gets -1, -2 …).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const DOCS = path.join(ROOT, 'docs');
const FILES = [
  path.join(ROOT, 'README.md'),
  ...readdirSync(DOCS)
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join(DOCS, f)),
];

/** The anchor GitHub gives a heading's text. */
export function slug(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1') // a link or image: its text
    .replace(/<[^>]+>/g, '') // inline HTML
    .replace(/`/g, '');
  return text
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** The markdown outside fenced code blocks, line by line. */
function prose(markdown: string): string[] {
  const lines: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (fence === null || marker.startsWith(fence))) {
      fence = fence === null ? marker : null;
      continue;
    }
    if (fence === null) lines.push(line);
  }
  return lines;
}

export function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const line of prose(markdown)) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** Relative link targets ([text](target), ![alt](target)), outside code. */
export function links(markdown: string): string[] {
  const out: string[] = [];
  for (const line of prose(markdown)) {
    const text = line.replace(/(`+)[^`]*?\1/g, ''); // inline code spans
    for (const match of text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto: …
      out.push(target);
    }
  }
  return out;
}

/** Every broken relative link of one markdown file, as "file: target (why)". */
export function brokenLinks(file: string, markdown: string, read: (file: string) => string | undefined): string[] {
  const problems: string[] = [];
  for (const target of links(markdown)) {
    const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
    const resolved = pathPart === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(pathPart));
    const name = `${path.relative(ROOT, file)}: ${target}`;
    if (pathPart !== '' && !existsSync(resolved)) {
      problems.push(`${name} (no such file)`);
      continue;
    }
    if (anchor === undefined || anchor === '') continue;
    if (pathPart !== '' && (statSync(resolved).isDirectory() || !resolved.endsWith('.md'))) {
      problems.push(`${name} (an anchor into a file that is not markdown)`);
      continue;
    }
    const content = read(resolved);
    if (content === undefined || !anchors(content).has(decodeURIComponent(anchor))) problems.push(`${name} (no heading with that anchor)`);
  }
  return problems;
}

const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : undefined);

test('anchors follow GitHub: lowercase, punctuation removed, spaces to dashes, repeats numbered', () => {
  assert.equal(slug("Candidates' data rights"), 'candidates-data-rights');
  assert.equal(slug('Running on PostgreSQL, and several nodes'), 'running-on-postgresql-and-several-nodes');
  assert.equal(slug('Safety (server-side request forgery)'), 'safety-server-side-request-forgery');
  assert.equal(slug('The run of 2026-11-23 08:08 UTC in short'), 'the-run-of-2026-11-23-0808-utc-in-short');
  assert.equal(slug('`GET /v1/score` and [links](x.md)'), 'get-v1score-and-links');
  assert.deepEqual([...anchors('# A\n## A\n```sh\n# not a heading\n```\n## A')], ['a', 'a-1', 'a-2']);
});

test('the check finds a missing file and a missing anchor, and ignores code and absolute URLs', () => {
  const file = path.join(DOCS, 'example.md');
  const markdown = [
    '# Example',
    '[ok](#example) [ok](../README.md#walk-through) [ok](webhooks.md) [web](https://example.com/x#y)',
    '[gone](nowhere.md) [bad anchor](#nowhere) [bad anchor](operations.md#nowhere)',
    '`[in code](missing.md)`',
    '```md',
    '[in a fence](missing-too.md)',
    '```',
  ].join('\n');
  assert.deepEqual(
    brokenLinks(file, markdown, (f) => (f === file ? markdown : read(f))),
    [
      'docs/example.md: nowhere.md (no such file)',
      'docs/example.md: #nowhere (no heading with that anchor)',
      'docs/example.md: operations.md#nowhere (no heading with that anchor)',
    ],
  );
});

test('every relative link and anchor in README.md and docs/*.md resolves', () => {
  const problems = FILES.flatMap((file) => brokenLinks(file, readFileSync(file, 'utf8'), read));
  assert.deepEqual(problems, []);
  assert.ok(FILES.reduce((n, file) => n + links(readFileSync(file, 'utf8')).length, 0) >= 40, 'the links were found at all');
});

test('the README links every page of docs/', () => {
  const readme = links(readFileSync(path.join(ROOT, 'README.md'), 'utf8'));
  for (const file of FILES.filter((f) => f.startsWith(DOCS))) {
    assert.ok(readme.includes(`docs/${path.basename(file)}`), `README.md does not link docs/${path.basename(file)}`);
  }
});

test('the documentation stands alone: every document it names is in the repository, and no section of another is cited', () => {
  const tracked = new Set(
    execFileSync('git', ['ls-files', '*.md'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map((f) => path.basename(f)),
  );
  for (const file of FILES) {
    const text = readFileSync(file, 'utf8');
    for (const [name] of text.matchAll(/\b[\w-]+\.md\b/g)) {
      assert.ok(tracked.has(name), `${path.relative(ROOT, file)} names ${name}, which is not in the repository`);
    }
    assert.doesNotMatch(text, /§/, `${path.relative(ROOT, file)} cites a section (§) of another document`);
  }
});
