// The console's other lists as an owner works them: users, API keys and the audit log sort by
// their columns both ways and come in numbered pages of 50 with the total; a bad order or page is
// refused with a clear error; the audit log's old "older entries" links still work.
import assert from 'node:assert/strict';
import { before, it } from 'node:test';
import { pager } from '../src/console/components.js';
import { countAudit } from '../src/modules/audit/audit.js';
import { describeEachStore } from './harness.js';
import { consoleAs, consoleUser } from './support/console.js';

const USERS = 54;

describeEachStore('the console lists', (ctx) => {
  let instance: string;
  let owner: Awaited<ReturnType<typeof consoleAs>>;

  before(async () => {
    instance = await ctx().instance('lists');
    const made = await consoleUser(ctx(), 'owner-lists@example.com', 'owner');
    owner = await consoleAs(ctx(), 'owner-lists@example.com', made.password);
    // Reviewers u00 … u52 (e-mails in a known order), every third one disabled.
    for (let i = 0; i < USERS - 1; i++) {
      const email = `u${String(i).padStart(2, '0')}-lists@example.com`;
      const response = await ctx().request({ method: 'POST', url: '/admin/v1/users', payload: { email, role: i % 5 === 0 ? 'manager' : 'reviewer', instances: [instance] } });
      assert.equal(response.statusCode, 201, response.body);
      if (i % 3 === 0) await ctx().db.query(`UPDATE users SET disabled_at = now() WHERE email = $1`, [email]);
    }
  });

  /** The e-mails of the users table's rows, in its order. */
  const usersOf = (body: string) => [...body.matchAll(/<tr><th scope="row">([^<]+)<\/th>/g)].map((m) => m[1]!);

  it('users: by e-mail from A, 50 a page with the total; each column both ways', async () => {
    const first = await owner.get('/console/users');
    assert.equal(first.statusCode, 200);
    const emails = usersOf(first.body);
    assert.equal(emails.length, 50);
    assert.deepEqual(emails, emails.slice().sort(), 'alphabetical');
    assert.match(first.body, /Users 1–50 of 54/);
    assert.match(first.body, /aria-sort="ascending"><a class="sort" href="\/console\/users\?sort=email-desc#users-heading">E-mail/);
    const second = await owner.get('/console/users?page=2');
    assert.equal(usersOf(second.body).length, 4);
    assert.match(second.body, /Users 51–54 of 54/);
    assert.equal(new Set([...emails, ...usersOf(second.body)]).size, 54, 'no row on two pages');

    const backwards = usersOf((await owner.get('/console/users?sort=email-desc')).body);
    assert.deepEqual(backwards.slice(0, 4), usersOf(second.body).reverse());

    const byState = await owner.get('/console/users?sort=state-desc');
    assert.match(byState.body, /aria-sort="descending"><a class="sort" href="[^"]*sort=state#users-heading">State/);
    const states = [...byState.body.matchAll(/<td data-label="State">(active|disabled)<\/td>/g)].map((m) => m[1]);
    assert.equal(states[0], 'disabled', 'disabled first when descending');
    assert.deepEqual(states, states.slice().sort().reverse());
    const roles = [...(await owner.get('/console/users?sort=role')).body.matchAll(/<\/th><td data-label="Role">(owner|manager|reviewer)<\/td>/g)].map((m) => m[1]);
    assert.deepEqual(roles.slice(0, 2), ['owner', 'manager'], 'owners, then managers, then reviewers');

    const past = await owner.get('/console/users?page=9');
    assert.equal(past.statusCode, 200);
    assert.match(past.body, /This page is past the last one/);
    for (const bad of ['sort=password', 'sort=email-up', 'page=0', 'page=x', 'page=1000001']) {
      const refused = await owner.get(`/console/users?${bad}`);
      assert.equal(refused.statusCode, 400, bad);
      assert.match(refused.body, bad.startsWith('sort') ? /sort.*must be one of email, role, state/s : /page.*must be a whole number/s, bad);
    }
  });

  it('API keys: oldest first; by label and by last use, those without last either way', async () => {
    const keys: string[] = [];
    for (const label of ['Bravo', undefined, 'alpha', 'Charlie']) keys.push(await ctx().key([instance], label ? { label } : {}));
    // The last key made is used; the others never are.
    assert.equal((await ctx().request({ method: 'GET', url: '/v1/assessment', headers: { 'x-api-key': keys[3]!, instance } })).statusCode, 200);
    const labelsOf = (body: string) => [...body.matchAll(/<\/th><td data-label="Label">([^<]+)<\/td>/g)].map((m) => m[1]);
    const list = (query: string) => owner.get(`/console/keys?instance=${instance}${query}`);
    assert.deepEqual(labelsOf((await list('')).body), ['Bravo', '-', 'alpha', 'Charlie']);
    assert.deepEqual(labelsOf((await list('&sort=label')).body), ['alpha', 'Bravo', 'Charlie', '-']);
    assert.deepEqual(labelsOf((await list('&sort=label-desc')).body), ['Charlie', 'Bravo', 'alpha', '-']);
    const used = await list('&sort=used-desc');
    assert.equal(labelsOf(used.body)[0], 'Charlie', 'the one used first');
    assert.match(used.body, /aria-sort="descending"><a class="sort" href="\/console\/keys\?instance=[^"&]+&amp;sort=used#keys-heading">Last used/);
    assert.equal((await list('&sort=secret')).statusCode, 400);
  });

  it('audit log: newest first in numbered pages; by who or action; filters kept; old links work', async () => {
    const all = await owner.get('/console/audit');
    assert.equal(all.statusCode, 200);
    const numbersOf = (body: string) => [...body.matchAll(/<tr><td data-label="Entry">(\d+)<\/td>/g)].map((m) => Number(m[1]));
    const newest = numbersOf(all.body);
    assert.equal(newest.length, 50);
    assert.deepEqual(
      newest,
      newest.slice().sort((a, b) => b - a),
    );
    const total = Number(/Entries 1–50 of ([\d,]+)/.exec(all.body)![1]!.replace(',', ''));
    assert.ok(total > 54, `every user made is an entry: ${total}`);
    const second = numbersOf((await owner.get('/console/audit?page=2')).body);
    assert.equal(second[0], newest[49]! - 1, 'page 2 goes on where page 1 stopped');

    const oldest = numbersOf((await owner.get('/console/audit?sort=number')).body);
    assert.deepEqual(
      oldest,
      oldest.slice().sort((a, b) => a - b),
    );
    const byAction = await owner.get('/console/audit?sort=action-desc&action=user.');
    const actions = [...byAction.body.matchAll(/<td data-label="Action">(user\.[a-z.-]+)<\/td>/g)].map((m) => m[1]!);
    assert.ok(actions.length > 0 && actions.every((a) => a.startsWith('user.')));
    assert.deepEqual(actions, actions.slice().sort().reverse());
    assert.match(byAction.body, /<input type="hidden" name="sort" value="action-desc">/, 'filtering keeps the order');
    assert.match(byAction.body, /href="\/console\/audit\?action=user\.&amp;sort=action#?"?/, 'sorting keeps the filter');

    const keyset = await owner.get(`/console/audit?before=${newest[9]}`);
    assert.deepEqual(numbersOf(keyset.body).slice(0, 3), [newest[10], newest[11], newest[12]]);
    assert.match(keyset.body, /rel="next">Older entries/);
    assert.match((await owner.get('/console/audit?actor=nobody')).body, /No entry matches/);
    assert.equal((await owner.get('/console/audit?sort=when')).statusCode, 400);
    assert.equal((await owner.get('/console/audit?before=0')).statusCode, 400);
  });

  it('audit log: counted only so far; past it the pages say "more than" and lead on with Next', async () => {
    const everything = await countAudit(ctx().db, {}, 1_000_000);
    assert.equal(everything.more, false);
    assert.ok(everything.total > 54);
    assert.deepEqual(await countAudit(ctx().db, {}, 20), { total: 20, more: true });
    assert.deepEqual(await countAudit(ctx().db, {}, everything.total), { total: everything.total, more: false }, 'exactly as many as counted: no more');
    assert.deepEqual(await countAudit(ctx().db, { actor: 'nobody' }, 20), { total: 0, more: false });
    const pages = String(pager({ page: 2, size: 10, total: 20, more: true, noun: 'entries', href: (p) => `?page=${p}` }));
    assert.match(pages, /Entries 11–20 of more than 20/);
    assert.match(pages, /href="\?page=3" rel="next">Next/);
    assert.doesNotMatch(String(pager({ page: 2, size: 10, total: 20, noun: 'entries', href: (p) => `?page=${p}` })), /rel="next"/, 'without more, page 2 of 20 is the last');
  });
});
