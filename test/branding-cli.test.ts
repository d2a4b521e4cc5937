// The operator CLI's branding flags against a real server: set every setting and a logo, list
// the display name, clear and remove them; bad flags and bad files are refused and change nothing.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, it } from 'node:test';
import { describeEachStore } from './harness.js';
import { runCli } from './support/cli.js';
import { TINY_PNG, samePixels } from './support/images.js';

describeEachStore('CLI: instance branding', (ctx) => {
  let url: string;
  const dir = mkdtempSync(path.join(tmpdir(), 'ac-brand-'));
  const file = (name: string, bytes: Buffer | string) => {
    const full = path.join(dir, name);
    writeFileSync(full, bytes);
    return full;
  };

  before(async () => {
    url = await ctx().app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const cli = (args: string[]) => runCli(url, args);
  const show = async (name: string) => (await ctx().request({ method: 'GET', url: '/admin/v1/instances' })).json().find((i: { name: string }) => i.name === name);

  it('creates and updates an instance with branding and a logo, lists it, and clears it', async () => {
    const name = `clibrand-${process.pid}`;
    const logo = file('logo.png', TINY_PNG);
    const made = await cli([
      'instance',
      'create',
      name,
      '--display-name',
      'Acme Ltd',
      '--accent-color',
      '#0B57D0',
      '--support-email',
      'jobs@acme.example',
      '--privacy-url',
      'https://acme.example/privacy',
      '--logo',
      logo,
    ]);
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, new RegExp(`Created instance ${name} \\(shown to candidates as Acme Ltd\\)`));
    const created = await show(name);
    assert.deepEqual(
      [created.displayName, created.accentColor, created.supportEmail, created.privacyUrl],
      ['Acme Ltd', '#0B57D0', 'jobs@acme.example', 'https://acme.example/privacy'],
    );
    assert.match(created.logoUrl, /^\/brand\//);
    const served = await ctx().request({ method: 'GET', url: created.logoUrl });
    assert.ok(await samePixels(served.rawPayload, TINY_PNG));

    const listed = await cli(['instance', 'list']);
    assert.match(listed.stdout, /^name\s+displayName\s/m);
    assert.match(listed.stdout, new RegExp(`^${name}\\s+Acme Ltd\\s`, 'm'));

    const renamed = await cli(['instance', 'update', name, '--display-name', 'Acme Group', '--json']);
    assert.equal(renamed.code, 0, renamed.stderr);
    assert.equal(JSON.parse(renamed.stdout).displayName, 'Acme Group');
    assert.equal(JSON.parse(renamed.stdout).logoUrl, created.logoUrl, 'the logo stays');

    const removed = await cli(['instance', 'update', name, '--no-logo']);
    assert.equal(removed.code, 0, removed.stderr);
    assert.match(removed.stdout, /logo removed/);
    assert.equal((await show(name)).logoUrl, null);
    assert.equal((await cli(['instance', 'update', name, '--logo', logo])).code, 0);
    assert.equal((await cli(['instance', 'update', name, '--logo', 'none'])).code, 0);
    assert.equal((await show(name)).logoUrl, null);

    const cleared = await cli(['instance', 'update', name, '--display-name', '', '--accent-color', '', '--support-email', '', '--privacy-url', '', '--json']);
    assert.equal(cleared.code, 0, cleared.stderr);
    const after = JSON.parse(cleared.stdout);
    assert.deepEqual([after.displayName, after.accentColor, after.supportEmail, after.privacyUrl, after.company], [null, null, null, null, name]);
  });

  it('refuses bad values and bad files with a clear message, and changes nothing', async () => {
    const name = `clibrandbad-${process.pid}`;
    assert.equal((await cli(['instance', 'create', name, '--display-name', 'Kept Ltd', '--accent-color', '#1D6B57'])).code, 0);
    const before = await show(name);
    const svg = file('logo.svg', '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    const fake = file('fake.png', 'this is not a png');
    const big = file('big.png', Buffer.concat([TINY_PNG, Buffer.alloc(300 * 1024)]));
    const gif = file('logo.gif', 'GIF89a');
    const cases: [string[], number, RegExp][] = [
      [['--accent-color', '#FFD700'], 1, /400 accentColor #FFD700 has a contrast ratio of 1\.4:1 against white; AA needs 4\.5:1/],
      [['--accent-color', 'red'], 1, /400 .*accentColor/],
      [['--support-email', 'nobody'], 1, /400 .*supportEmail/],
      [['--privacy-url', 'http://acme.example/'], 1, /privacyUrl must be an https:\/\/ address/],
      [['--display-name', 'x'.repeat(101)], 1, /400 .*displayName/],
      // A bad logo stops the command before anything is sent: the good setting beside it is not saved.
      [['--display-name', 'Changed', '--logo', svg], 2, /SVG logos are refused/],
      [['--display-name', 'Changed', '--logo', fake], 2, /declared image\/png but its bytes are not a PNG, JPEG or WebP image/],
      [['--display-name', 'Changed', '--logo', big], 2, /The logo is 301 KB; the limit is 200 KB/],
      [['--display-name', 'Changed', '--logo', gif], 2, /a logo is a \.png, \.jpg, \.jpeg or \.webp file/],
      [['--display-name', 'Changed', '--logo', path.join(dir, 'missing.png')], 2, /cannot read/],
      [['--logo', path.join(dir, 'x.png'), '--no-logo'], 2, /not both/],
    ];
    for (const [args, code, message] of cases) {
      const refused = await cli(['instance', 'update', name, ...args]);
      assert.equal(refused.code, code, `${args.join(' ')}: ${refused.stderr}`);
      assert.match(refused.stderr, message, args.join(' '));
    }
    assert.deepEqual(await show(name), before);
    const noLogo = await cli(['instance', 'create', `${name}-x`, '--no-logo']);
    assert.equal(noLogo.code, 2);
    assert.equal(await show(`${name}-x`), undefined);
    assert.match((await cli(['--help'])).stdout, /--display-name N\] \[--logo FILE\] \[--accent-color '#RRGGBB'\] \[--support-email E\] \[--privacy-url URL\]/);
  });
});
