// The library's coding tests (catalogue/javascript-fundamentals, python-fundamentals,
// problem-solving) against their reference solutions, in the real sandbox: each question's correct
// solution, in every language the question allows, passes every visible example and hidden test
// within the question's time and memory limits, with room (each test in under half its time
// limit); a plausible wrong solution passes the examples but fails a hidden test; the starter
// code passes none. The solutions are in test/fixtures/library-solutions.ts, not in the catalogue.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { parseAssessment } from '../src/modules/assessments/content.js';
import type { QuestionContent } from '../src/modules/assessments/content-schema.js';
import { DEFAULT_MEMORY_LIMIT_MB, DEFAULT_TIME_LIMIT_MS, gradeOf, runAgainst } from '../src/modules/attempts/coding-grades.js';
import { CodeRunner, type RunResult } from '../src/modules/coding/sandbox.js';
import { catalogueFiles } from '../src/seed.js';
import { LIBRARY_SOLUTIONS } from './fixtures/library-solutions.js';

type Coding = Extract<QuestionContent, { type: 'coding' }>;

const coding = catalogueFiles().flatMap((file) => {
  const parsed = parseAssessment(readFileSync(file, 'utf8'));
  if (!parsed.ok) throw new Error(file);
  const questions = parsed.content.questions.filter((q): q is Coding => q.type === 'coding');
  return questions.length > 0 ? [{ id: parsed.content.id, questions, text: readFileSync(file, 'utf8') }] : [];
});

const runner = new CodeRunner(2);

describe('the library coding tests', () => {
  it('are the JavaScript, Python and problem-solving tests, each question complete, no solution in the catalogue', () => {
    assert.deepEqual(coding.map((a) => a.id).sort(), ['javascript-fundamentals', 'problem-solving', 'python-fundamentals']);
    const languages = Object.fromEntries(coding.map((a) => [a.id, [...new Set(a.questions.flatMap((q) => q.languages))].sort().join(',')]));
    assert.deepEqual(languages, { 'javascript-fundamentals': 'javascript', 'python-fundamentals': 'python', 'problem-solving': 'javascript,python' });
    for (const a of coding) {
      assert.ok(a.questions.length >= 4, `${a.id}: ${a.questions.length} questions`);
      if (a.id === 'problem-solving') assert.ok(a.questions.every((q) => q.languages.length === 2));
      for (const q of a.questions) {
        assert.ok(q.entry, `${q.id}: an entry function`);
        assert.deepEqual(Object.keys(q.starterCode ?? {}).sort(), [...q.languages].sort(), `${q.id}: starter code in each language`);
        assert.ok((q.examples ?? []).length >= 1, `${q.id}: a visible example`);
        assert.ok(q.tests.length >= 6, `${q.id}: ${q.tests.length} hidden tests`);
        assert.ok(q.timeLimitMs !== undefined && q.memoryLimitMb !== undefined, `${q.id}: limits stated`);
        const solutions = LIBRARY_SOLUTIONS[q.id];
        assert.ok(solutions, `${q.id}: reference solutions`);
        assert.deepEqual(Object.keys(solutions.right).sort(), [...q.languages].sort(), `${q.id}: a right solution in each language`);
        assert.deepEqual(Object.keys(solutions.wrong).sort(), [...q.languages].sort(), `${q.id}: a wrong solution in each language`);
        for (const source of [...Object.values(solutions.right), ...Object.values(solutions.wrong)]) {
          const body = source.split('\n').find((line) => line.trim().length > 20 && !/^(def|function) /.test(line.trim()))!;
          assert.ok(!a.text.includes(body.trim()), `${q.id}: the catalogue does not hold the solution`);
        }
      }
    }
  });

  // One run per language and kind of solution, every question's function in one program (their
  // names differ) called through a dispatcher: Pyodide's start-up, seconds a run, is paid six times
  // rather than sixty. Each test still has its question's time limit, and the run the tightest
  // memory limit of its questions.
  const questions = coding.flatMap((a) => a.questions);
  const DISPATCH = {
    javascript: '\nfunction callEntry(name, args) {\n  return globalThis[name](...args);\n}\n',
    python: '\ndef call_entry(name, args):\n    return globals()[name](*args)\n',
  } as const;
  type Kind = 'right' | 'wrong' | 'starter';
  const runs = new Map<string, Promise<{ q: Coding; result: RunResult }[]>>();
  function runAll(language: 'javascript' | 'python', kind: Kind) {
    const key = `${language}/${kind}`;
    if (!runs.has(key)) {
      const qs = questions.filter((q) => (q.languages as readonly string[]).includes(language));
      const source = qs.map((q) => (kind === 'starter' ? q.starterCode![language]! : LIBRARY_SOLUTIONS[q.id]![kind][language]!)).join('\n') + DISPATCH[language];
      const tests = qs.flatMap((q) => [...(q.examples ?? []), ...q.tests].map((t) => ({ args: [q.entry, t.args ?? []], expected: t.expected ?? null })));
      const combined = {
        ...qs[0]!,
        entry: language === 'javascript' ? 'callEntry' : 'call_entry',
        timeLimitMs: Math.min(...qs.map((q) => q.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS)),
        memoryLimitMb: Math.min(...qs.map((q) => q.memoryLimitMb ?? DEFAULT_MEMORY_LIMIT_MB)),
      };
      runs.set(
        key,
        runAgainst(combined, { language, source }, tests, runner).then((result) => {
          let at = 0;
          return qs.map((q) => {
            const n = (q.examples ?? []).length + q.tests.length;
            const part = { ...result, tests: result.tests.slice(at, at + n) };
            at += n;
            return { q, result: part };
          });
        }),
      );
    }
    return runs.get(key)!;
  }
  const resultOf = async (language: 'javascript' | 'python', kind: Kind, q: Coding) => (await runAll(language, kind)).find((r) => r.q.id === q.id)!.result;

  for (const q of questions) {
    for (const language of q.languages) {
      it(`${q.id} (${language}): the reference passes every test within its limits, a wrong solution and the starter code do not`, async () => {
        const examples = (q.examples ?? []).length;
        const [right, wrong, starter] = (await Promise.all((['right', 'wrong', 'starter'] as const).map((kind) => resultOf(language, kind, q)))) as [
          RunResult,
          RunResult,
          RunResult,
        ];
        assert.equal(right.tests.length, examples + q.tests.length);
        assert.deepEqual(
          right.tests.flatMap((t, i) => (t.passed ? [] : [{ i, status: t.status, actual: t.actual, expected: t.expected, error: t.error }])),
          [],
        );
        const limit = q.timeLimitMs ?? DEFAULT_TIME_LIMIT_MS;
        assert.ok(
          right.tests.every((t) => t.durationMs < limit / 2),
          `each test well within ${limit} ms: ${right.tests.map((t) => t.durationMs).join(', ')}`,
        );
        const hidden = (r: RunResult) => ({ ...r, tests: r.tests.slice(examples) });
        assert.equal(gradeOf(q, hidden(right)).grade, 100);

        assert.ok(
          wrong.tests.slice(0, examples).every((t) => t.passed),
          'the wrong solution passes the examples (the hidden tests must catch it)',
        );
        const wrongGrade = gradeOf(q, hidden(wrong)).grade;
        assert.ok(wrongGrade < 100 && wrongGrade > 0, `the wrong solution fails a hidden test, and passes some: ${wrongGrade}`);
        const starterGrade = gradeOf(q, hidden(starter)).grade;
        assert.ok(starterGrade < 50, `the starter code scores ${starterGrade}`);
      });
    }
  }
});
