import assert from 'node:assert/strict';
import { it } from 'node:test';
import { Ajv } from 'ajv';
import { createTestContext, describeEachStore, sampleAssessment, storeKinds } from '../../../test/harness.js';
import { ScoreRecord } from './schema.js';
import { PAGE_SIZE } from './repository.js';

// The published score record written out by hand, independently of the service's own schema: all fields required,
// no others, every string at least one character.
const str = { type: 'string', minLength: 1 };
const specRecord = {
  type: 'object',
  additionalProperties: false,
  required: [
    'candidateId',
    'assessmentId',
    'assessmentName',
    'assessmentStatus',
    'scoreStatus',
    'completion',
    'totalScore',
    'typingSpeed',
    'categoryScores',
    'redFlag',
    'started',
    'finished',
  ],
  properties: {
    candidateId: str,
    assessmentId: str,
    assessmentName: str,
    assessmentStatus: { enum: ['INVITED', 'IN_PROGRESS', 'COMPLETED'] },
    scoreStatus: { enum: ['PENDING', 'LOW_PASS', 'PASS', 'FAIL'] },
    completion: str,
    totalScore: str,
    typingSpeed: str,
    categoryScores: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['name', 'score'], properties: { name: str, score: str } },
    },
    redFlag: { type: 'boolean' },
    started: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{7}\\+00:00$' },
    finished: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{7}\\+00:00$' },
  },
};
const ajv = new Ajv({ allErrors: true, strict: false });
const validSpec = ajv.compile({ type: 'array', items: specRecord });
const validOwn = ajv.compile({ type: 'array', items: ScoreRecord });

describeEachStore('GET /v1/score', (ctx) => {
  async function tenant() {
    const instance = await ctx().instance();
    await ctx().publish(instance, sampleAssessment('alpha', { name: 'Alpha' }));
    await ctx().publish(instance, sampleAssessment('beta', { name: 'Beta' }));
    const key = await ctx().key([instance]);
    const invite = async (email: string, assessments: string[]) =>
      (
        await ctx().request({ method: 'POST', url: '/v1/invite', headers: { 'x-api-key': key, instance }, payload: { email, firstName: 'F', lastName: 'L', assessments } })
      ).json()[0].candidateId as string;
    return { instance, key, invite };
  }
  const scores = async (key: string, query = '', headers: Record<string, string> = {}) => {
    const response = await ctx().request({ method: 'GET', url: `/v1/score${query}`, headers: { 'x-api-key': key, ...headers } });
    return response;
  };
  const pairs = (body: { candidateId: string; assessmentId: string }[]) => body.map((r) => `${r.candidateId}/${r.assessmentId}`);

  it('returns every record in scope without filters, in invitation order, valid against the published score record', async () => {
    const t = await tenant();
    const a = await t.invite('a@x.co', ['beta', 'alpha']);
    const b = await t.invite('b@x.co', ['alpha']);
    const response = await scores(t.key);
    assert.equal(response.statusCode, 200);
    const body = response.json() as { candidateId: string; assessmentId: string; assessmentName: string }[];
    assert.ok(validSpec(body), JSON.stringify(validSpec.errors));
    assert.ok(validOwn(body), JSON.stringify(validOwn.errors));
    assert.equal(body.length, 3);
    assert.deepEqual(pairs(body).slice(2), [`${b}/alpha`]);
    assert.deepEqual(new Set(pairs(body).slice(0, 2)), new Set([`${a}/alpha`, `${a}/beta`]));
    assert.deepEqual(pairs((await scores(t.key)).json()), pairs(body), 'the order is stable');
    assert.equal(body[0]!.assessmentName, body[0]!.assessmentId === 'alpha' ? 'Alpha' : 'Beta');
  });

  it('filters by candidateIds, assessmentIds, and both (both must match)', async () => {
    const t = await tenant();
    const a = await t.invite('a@x.co', ['alpha', 'beta']);
    const b = await t.invite('b@x.co', ['alpha']);
    const c = await t.invite('c@x.co', ['beta']);
    assert.deepEqual(pairs((await scores(t.key, `?candidateIds=${a}`)).json()).sort(), [`${a}/alpha`, `${a}/beta`]);
    assert.deepEqual(pairs((await scores(t.key, `?candidateIds=${b},${c}`)).json()).sort(), [`${b}/alpha`, `${c}/beta`].sort());
    assert.deepEqual(pairs((await scores(t.key, '?assessmentIds=beta')).json()).sort(), [`${a}/beta`, `${c}/beta`].sort());
    assert.deepEqual(pairs((await scores(t.key, `?candidateIds=${a},${b}&assessmentIds=alpha`)).json()).sort(), [`${a}/alpha`, `${b}/alpha`].sort());
    assert.deepEqual(pairs((await scores(t.key, `?candidateIds=${c}&assessmentIds=alpha`)).json()), []);
    assert.deepEqual(
      pairs((await scores(t.key, `?candidateIds=${a}, ${a} ,${b}&assessmentIds=alpha`)).json()).sort(),
      [`${a}/alpha`, `${b}/alpha`].sort(),
      'spaces and repeats are harmless',
    );
  });

  it('unknown ids match nothing', async () => {
    const t = await tenant();
    await t.invite('a@x.co', ['alpha']);
    for (const query of [
      '?candidateIds=nope',
      '?candidateIds=00000000-0000-4000-8000-000000000000',
      '?assessmentIds=nope',
      '?assessmentIds=ALPHA',
      "?candidateIds=' OR 1=1 --",
      '?assessmentIds=%00',
      '?assessmentIds=alpha%00',
      '?candidateIds=%00&assessmentIds=%00',
      '?assessmentIds=%C3%A9,%EF%BF%BD',
    ]) {
      const response = await scores(t.key, query);
      assert.equal(response.statusCode, 200, query);
      assert.deepEqual(response.json(), [], query);
    }
  });

  it('refuses empty elements and more than 500 ids', async () => {
    const t = await tenant();
    const many = Array.from({ length: 501 }, (_, i) => `id${i}`).join(',');
    for (const [query, name] of [
      ['?candidateIds=', 'candidateIds'],
      ['?candidateIds=a,,b', 'candidateIds'],
      ['?candidateIds=a,', 'candidateIds'],
      ['?assessmentIds=,alpha', 'assessmentIds'],
      ['?assessmentIds= ', 'assessmentIds'],
      [`?assessmentIds=${many}`, 'assessmentIds'],
      [`?candidateIds=${many}`, 'candidateIds'],
      ['?candidateIds=a&candidateIds=b', 'candidateIds'],
    ] as const) {
      const response = await scores(t.key, query);
      assert.equal(response.statusCode, 400, `${query.slice(0, 40)}: ${response.body}`);
      assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8');
      assert.equal(response.json().errors[0].name, name);
      assert.equal(response.json().errors[0].in, 'query');
    }
    const exactly500 = Array.from({ length: 500 }, (_, i) => `id${i}`).join(',');
    assert.equal((await scores(t.key, `?assessmentIds=${exactly500}`)).statusCode, 200);
  });

  it('never shows another instance’s records, with or without filters', async () => {
    const mine = await tenant();
    const theirs = await tenant();
    const own = await mine.invite('same@x.co', ['alpha']);
    const foreign = await theirs.invite('same@x.co', ['alpha']);
    assert.notEqual(own, foreign, 'the same e-mail in two instances is two candidates');
    assert.deepEqual(pairs((await scores(mine.key)).json()), [`${own}/alpha`]);
    assert.deepEqual((await scores(mine.key, `?candidateIds=${foreign}`)).json(), []);
    assert.equal((await scores(mine.key, '', { instance: theirs.instance })).statusCode, 403);
  });

  it('streams a large export as one valid JSON array in a stable order', async () => {
    const t = await tenant();
    // More than one page of records, written straight to the store for speed.
    const { rows } = await ctx().db.query<{ id: string }>('SELECT id FROM instances WHERE name = $1', [t.instance]);
    const instanceId = rows[0]!.id;
    const total = PAGE_SIZE * 2 + 17;
    await ctx().db.query(
      `WITH c AS (
         INSERT INTO candidates (instance_id, email, first_name, last_name)
         SELECT $1, 'bulk' || g || '@x.co', 'F', 'L' FROM generate_series(1, $2::int) g RETURNING id)
       INSERT INTO invitations (instance_id, candidate_id, assessment_id)
       SELECT $1, c.id, (SELECT id FROM assessments WHERE instance_id = $1 AND slug = 'alpha') FROM c`,
      [instanceId, total],
    );
    const response = await scores(t.key);
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(response.headers['content-length'], undefined, 'streamed, not buffered');
    const body = response.json() as { candidateId: string; assessmentId: string; assessmentName: string }[];
    assert.equal(body.length, total);
    assert.ok(validSpec(body), JSON.stringify(validSpec.errors?.slice(0, 3)));
    assert.equal(new Set(pairs(body)).size, total, 'no record twice');
    assert.deepEqual(pairs((await scores(t.key)).json()), pairs(body), 'the same order every time');
  });

  it('pages on request: limit and the Link to the next page give the whole result, in order', async () => {
    const t = await tenant();
    for (let i = 0; i < 7; i++) await t.invite(`page${i}@x.co`, ['alpha', 'beta']);
    const whole = pairs((await scores(t.key)).json());
    assert.equal(whole.length, 14);
    for (const query of ['', '&assessmentIds=beta']) {
      const expected = query ? pairs((await scores(t.key, `?assessmentIds=beta`)).json()) : whole;
      const seen: string[] = [];
      let next: string | undefined = `/v1/score?limit=4${query}`;
      let pages = 0;
      while (next) {
        const response = await ctx().request({ method: 'GET', url: next, headers: { 'x-api-key': t.key } });
        assert.equal(response.statusCode, 200, response.body);
        assert.ok(validSpec(response.json()));
        assert.ok(response.json().length <= 4);
        seen.push(...pairs(response.json()));
        const link = response.headers.link as string | undefined;
        next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
        if (next && query) assert.match(next, /assessmentIds=beta/, 'the next page keeps the filters');
        pages++;
      }
      assert.deepEqual(seen, expected);
      assert.equal(pages, Math.ceil(expected.length / 4));
    }
    const exact = await scores(t.key, '?limit=14');
    assert.equal(exact.json().length, 14);
    assert.equal(exact.headers.link, undefined, 'no next page when nothing remains');
  });

  it('refuses a bad limit or cursor, and a cursor without limit', async () => {
    const t = await tenant();
    await t.invite('cursor@x.co', ['alpha']);
    for (const [query, name] of [
      ['?limit=0', 'limit'],
      ['?limit=1001', 'limit'],
      ['?limit=ten', 'limit'],
      ['?limit=5&cursor=not*base64', 'cursor'],
      [`?limit=5&cursor=${Buffer.from('v1:abc').toString('base64url')}`, 'cursor'],
      [`?limit=5&cursor=${Buffer.from('12').toString('base64url')}`, 'cursor'],
      [`?cursor=${Buffer.from('v1:12').toString('base64url')}`, 'cursor'],
    ] as const) {
      const response = await scores(t.key, query);
      assert.equal(response.statusCode, 400, query);
      assert.equal(response.json().errors[0].name, name, query);
    }
  });

  it('gives opaque, tamper-evident cursors that reveal no invitation id and only work for their API key', async () => {
    const t = await tenant();
    for (let i = 0; i < 3; i++) await t.invite(`opaque${i}@x.co`, ['alpha']);
    const cursorOf = (response: { headers: Record<string, unknown> }) => /[?&]cursor=([^&>]+)/.exec(String(response.headers.link))![1]!;
    const first = await scores(t.key, '?limit=1');
    const cursor = cursorOf(first);
    const { rows } = await ctx().db.query<{ id: string }>('SELECT id::text AS id FROM invitations ORDER BY id');
    const decoded = Buffer.from(cursor, 'base64url');
    for (const { id } of rows) {
      assert.ok(!decoded.toString('latin1').includes(id) || id.length < 3, `the cursor does not carry invitation id ${id} in clear`);
      assert.ok(!cursor.includes(Buffer.from(`v1:${id}`).toString('base64url')), 'not the old v1:<id> format');
    }
    assert.notEqual(cursorOf(await scores(t.key, '?limit=1')), cursor, 'the same position gives a different cursor each time');

    const second = await scores(t.key, `?limit=1&cursor=${cursor}`);
    assert.equal(second.statusCode, 200);
    assert.notDeepEqual(second.json(), first.json());

    // Any change to any character is refused, naming the cursor.
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const i of [0, 1, 5, 13, 20, 30, cursor.length - 1]) {
      const changed = alphabet[(alphabet.indexOf(cursor[i]!) + 1) % 64]!;
      const tampered = cursor.slice(0, i) + changed + cursor.slice(i + 1);
      const response = await scores(t.key, `?limit=1&cursor=${tampered}`);
      assert.equal(response.statusCode, 400, `changed at ${i}: ${response.body}`);
      assert.deepEqual(
        response.json().errors.map((e: { in: string; name: string }) => [e.in, e.name]),
        [['query', 'cursor']],
      );
    }
    const other = await ctx().key([t.instance]);
    const foreign = await scores(other, `?limit=1&cursor=${cursor}`);
    assert.equal(foreign.statusCode, 400, 'a cursor given to another API key');
    assert.equal(foreign.json().errors[0].name, 'cursor');
  });

  it('reads cursors made by another node on the same database (one shared secret)', async () => {
    const t = await tenant();
    for (let i = 0; i < 2; i++) await t.invite(`nodes${i}@x.co`, ['alpha']);
    const first = await scores(t.key, '?limit=1');
    const next = /^<([^>]+)>/.exec(String(first.headers.link))![1]!;
    const second = await createTestContext(
      storeKinds().find((k) => k.name === ctx().store)!,
      { db: ctx().db },
    );
    try {
      const response = await second.request({ method: 'GET', url: next, headers: { 'x-api-key': t.key } });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.json().length, 1);
    } finally {
      await second.app.close();
    }
  });
});
