// The content format of Likert and ranking questions: what is accepted, and for every mistake a
// message at its line.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAssessment } from './content.js';

const HEAD = `id: style
name: Work style
description: d
durationMinutes: 10
passScore: 50
lowPassScore: 40
categories:
  - id: planning
    name: Planning
questions:
`;

const LIKERT = `  - id: l1
    category: planning
    type: likert
    prompt: I plan my week *before* it starts.
    scale: agreement-5
`;

const RANKING = `  - id: r1
    category: planning
    type: ranking
    prompt: Order these.
    options:
      - id: call
        text: Call the customer back
      - id: email
        text: Answer the e-mail
      - id: report
        text: Finish the report
    key: [email, call, report]
`;

/** Parses HEAD + the questions, expecting failure; returns "path@line: message" lines. */
function problems(questions: string): string[] {
  const parsed = parseAssessment(HEAD + questions);
  assert.equal(parsed.ok, false, 'expected errors');
  return parsed.ok ? [] : parsed.errors.map((e) => `${e.path}@${e.line}: ${e.message}`);
}

describe('Likert and ranking content', () => {
  it('accepts named and listed scales, reverse keys, and rankings with a key', () => {
    const parsed = parseAssessment(
      HEAD +
        LIKERT +
        LIKERT.replace('l1', 'l2').replace('agreement-5', 'agreement-7').replace('scale:', 'reverse: true\n    scale:') +
        LIKERT.replace('l1', 'l3').replace('agreement-5', '[Never, Rarely, Sometimes, Often, Always]') +
        RANKING,
    );
    assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.errors));
    const [l1, l2, l3, r1] = parsed.content.questions;
    assert.deepEqual([l1!.type, l2!.type, l3!.type, r1!.type], ['likert', 'likert', 'likert', 'ranking']);
    assert.equal(l2!.type === 'likert' && l2!.reverse, true);
  });

  it('a Likert item needs a scale: a known name, or 5 or 7 distinct labels', () => {
    assert.deepEqual(problems(LIKERT.replace('    scale: agreement-5\n', '')), ['questions.0@11: is missing "scale"']);
    assert.deepEqual(problems(LIKERT.replace('agreement-5', 'agree-5')), [
      'questions.0.scale@15: "agree-5" is not a scale: use one of agreement-5, agreement-7, frequency-5, or a list of 5 or 7 labels',
    ]);
    assert.deepEqual(problems(LIKERT.replace('agreement-5', '[Never, Rarely, Often, Always]')), ['questions.0.scale@15: must have 5 or 7 points, has 4']);
    assert.deepEqual(problems(LIKERT.replace('agreement-5', '[A, B, C, D, E, F]')), ['questions.0.scale@15: must have 5 or 7 points, has 6']);
    assert.deepEqual(problems(LIKERT.replace('agreement-5', '\n      - Never\n      - Often\n      - Sometimes\n      - Often\n      - Always')), [
      'questions.0.scale.3@19: repeats the label "Often"',
    ]);
    assert.deepEqual(problems(LIKERT.replace('agreement-5', '5')), [
      'questions.0.scale@15: must be the name of a scale (agreement-5, agreement-7, frequency-5) or a list of 5 or 7 labels',
    ]);
    assert.deepEqual(problems(LIKERT.replace('agreement-5', '[Never, 3, Often]')), [
      'questions.0.scale@15: must be the name of a scale (agreement-5, agreement-7, frequency-5) or a list of 5 or 7 labels',
    ]);
    assert.deepEqual(problems(LIKERT + '    reverse: yes please\n'), ['questions.0.reverse@16: must be boolean']);
    assert.deepEqual(problems(LIKERT + '    options:\n      - text: A\n'), ['questions.0.options@16: "options" is not a known field']);
  });

  it('a ranking has 3 to 8 options with distinct ids and texts', () => {
    assert.deepEqual(problems(RANKING.replace(/ {6}- id: report\n {8}text: Finish the report\n/, '').replace(', report]', ']')), [
      'questions.0.options@15: must have at least 3 items, has 2',
    ]);
    const nine = Array.from({ length: 9 }, (_, i) => `      - id: o${i}\n        text: Option ${i}\n`).join('');
    const many = RANKING.replace(/ {4}options:\n[\s\S]*? {4}key: .*\n/, `    options:\n${nine}    key: [${Array.from({ length: 9 }, (_, i) => `o${8 - i}`).join(', ')}]\n`);
    assert.deepEqual(problems(many), ['questions.0.options@15: must have at most 8 items, has 9', 'questions.0.key@34: must have at most 8 items, has 9']);
    assert.deepEqual(problems(RANKING.replace('id: report', 'id: call').replace('[email, call, report]', '[email, call]')), [
      'questions.0.options.2.id@20: "call" is used by another option',
    ]);
    assert.deepEqual(problems(RANKING.replace('text: Finish the report', 'text: Answer the e-mail')), ['questions.0.options.2@20: repeats another option']);
    assert.deepEqual(problems(RANKING.replace('      - id: email\n', '      - ref: email\n')), [
      'questions.0.options.1@18: is missing "id"',
      'questions.0.options.1.ref@18: "ref" is not a known field',
    ]);
  });

  it('a ranking key lists every option id once, and is not the order the options are shown in', () => {
    assert.deepEqual(problems(RANKING.replace('    key: [email, call, report]\n', '')), ['questions.0@11: is missing "key"']);
    assert.deepEqual(problems(RANKING.replace('[email, call, report]', '[email, call]')), ['questions.0.key@22: must list every option once; missing "report"']);
    assert.deepEqual(problems(RANKING.replace('[email, call, report]', '[email, call, call]')), [
      'questions.0.key.2@22: lists "call" twice',
      'questions.0.key@22: must list every option once; missing "report"',
    ]);
    assert.deepEqual(problems(RANKING.replace('[email, call, report]', '[email, call, reprot]')), [
      'questions.0.key.2@22: "reprot" is not an option id of this question',
      'questions.0.key@22: must list every option once; missing "report"',
    ]);
    assert.deepEqual(problems(RANKING.replace('[email, call, report]', '[email, call, report, lunch]')), ['questions.0.key.3@22: "lunch" is not an option id of this question']);
    assert.deepEqual(problems(RANKING.replace('[email, call, report]', '[call, email, report]')), [
      'questions.0.options@15: are listed in the order of the key, so the candidate would start from the answer: list them in another order',
    ]);
    assert.deepEqual(problems(RANKING.replace('[email, call, report]', '[Email, call, report]')), ['questions.0.key.0@22: must match pattern "^[a-z][a-z0-9-]{0,63}$"']);
  });

  it('reports every problem of several questions at once, each at its own line', () => {
    const found = problems(LIKERT.replace('agreement-5', 'agree') + RANKING.replace('l1', 'x').replace('id: r1', 'id: r2').replace('[email, call, report]', '[email]'));
    assert.deepEqual(found, [
      'questions.0.scale@15: "agree" is not a scale: use one of agreement-5, agreement-7, frequency-5, or a list of 5 or 7 labels',
      'questions.1.key@27: must list every option once; missing "call", "report"',
    ]);
  });
});

describe('library metadata', () => {
  const META = 'roles: [Administrator, Team leader]\nreadingLevel: CEFR B1\n';
  const withPilot = (question: string, seconds: string) => question.replace('    type:', `    pilotSeconds: ${seconds}\n    type:`);

  it('accepts roles, a reading level and pilot times, and content without them as before', () => {
    const parsed = parseAssessment(HEAD.replace('durationMinutes', `${META}durationMinutes`) + withPilot(LIKERT, '12'));
    assert.ok(parsed.ok, JSON.stringify(!parsed.ok && parsed.errors));
    assert.deepEqual(parsed.content.roles, ['Administrator', 'Team leader']);
    assert.equal(parsed.content.readingLevel, 'CEFR B1');
    assert.equal(parsed.content.questions[0]!.pilotSeconds, 12);
    assert.ok(parseAssessment(HEAD + LIKERT).ok, 'every field is optional');
  });

  it('refuses an empty role list, an empty reading level and a pilot time that is not a whole number of seconds from 1', () => {
    const refused = (head: string, question: string) => {
      const parsed = parseAssessment(head + question);
      assert.equal(parsed.ok, false);
      return parsed.ok ? [] : parsed.errors.map((e) => `${e.path}@${e.line}: ${e.message}`);
    };
    assert.deepEqual(refused(HEAD.replace('durationMinutes', 'roles: []\ndurationMinutes'), LIKERT), ['roles@4: must have at least 1 item, has 0']);
    assert.deepEqual(refused(HEAD.replace('durationMinutes', "readingLevel: ''\ndurationMinutes"), LIKERT), ['readingLevel@4: must NOT have fewer than 1 characters']);
    assert.deepEqual(refused(HEAD, withPilot(LIKERT, '0')), ['questions.0.pilotSeconds@13: must be >= 1']);
    assert.deepEqual(refused(HEAD, withPilot(LIKERT, '7.5')), ['questions.0.pilotSeconds@13: must be integer']);
  });
});
