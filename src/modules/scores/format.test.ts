import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NOT_YET, formatDecimal, formatTimestamp, toScoreRecord, type InvitationRow } from './format.js';

describe('formatTimestamp', () => {
  it('writes UTC with seven fractional digits', () => {
    assert.equal(formatTimestamp('1763824260123456'), '2025-11-22T15:11:00.1234560+00:00');
    assert.equal(formatTimestamp(0n), '1970-01-01T00:00:00.0000000+00:00');
    assert.equal(formatTimestamp('1000'), '1970-01-01T00:00:00.0010000+00:00');
    assert.equal(formatTimestamp('1'), '1970-01-01T00:00:00.0000010+00:00');
  });
  it('handles instants before 1970 without borrowing errors', () => {
    assert.equal(formatTimestamp('-1'), '1969-12-31T23:59:59.9999990+00:00');
    assert.equal(formatTimestamp('-1000001'), '1969-12-31T23:59:58.9999990+00:00');
  });
  it('gives the year-1 placeholder for an event that has not happened', () => {
    assert.equal(formatTimestamp(null), NOT_YET);
    assert.equal(NOT_YET, '0001-01-01T00:00:00.0000000+00:00');
  });
  it('always matches the published shape', () => {
    for (const micros of ['0', '253402300799999999', '1700000000000001', '-62135596800000000']) {
      assert.match(formatTimestamp(micros), /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{7}\+00:00$/);
    }
  });
});

describe('formatDecimal', () => {
  const cases: [number | string, string][] = [
    [0, '0'],
    [100, '100'],
    [87.5, '87.5'],
    ['87.50', '87.5'],
    ['100.00', '100'],
    [33.333333, '33.33'],
    [66.666666, '66.67'],
    [1.005, '1.01'],
    [2.675, '2.68'],
    [0.004, '0'],
    [-0, '0'],
    [-0.001, '0'],
    [12.1, '12.1'],
    ['0.00', '0'],
    [99.995, '100'],
    [1e-7, '0'],
    [1e-300, '0'],
    [5e-3, '0.01'],
    [0.1 + 0.2, '0.3'],
  ];
  for (const [input, expected] of cases) {
    it(`${JSON.stringify(input)} -> "${expected}"`, () => assert.equal(formatDecimal(input), expected));
  }
  it('refuses what is not a number', () => {
    assert.throws(() => formatDecimal('abc'), RangeError);
    assert.throws(() => formatDecimal(Number.NaN), RangeError);
  });
});

describe('toScoreRecord', () => {
  const base: InvitationRow = {
    candidateId: 'c1',
    assessmentId: 'a1',
    assessmentName: 'Assessment',
    assessmentStatus: 'INVITED',
    scoreStatus: 'PENDING',
    completion: '0.00',
    totalScore: '0.00',
    typingWpm: '0.00',
    categoryScores: [],
    redFlag: false,
    startedMicros: null,
    finishedMicros: null,
  };
  const keys = [
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
  ];

  it('INVITED/PENDING: placeholders, zeros, no categories', () => {
    const record = toScoreRecord(base);
    assert.deepEqual(Object.keys(record), keys);
    assert.equal(record.started, NOT_YET);
    assert.equal(record.finished, NOT_YET);
    assert.equal(record.totalScore, '0');
    assert.deepEqual(record.categoryScores, []);
  });

  it('IN_PROGRESS: started set, finished not yet, score hidden', () => {
    const record = toScoreRecord({ ...base, assessmentStatus: 'IN_PROGRESS', completion: '40.00', startedMicros: '1763824260000000' });
    assert.equal(record.assessmentStatus, 'IN_PROGRESS');
    assert.equal(record.started, '2025-11-22T15:11:00.0000000+00:00');
    assert.equal(record.finished, NOT_YET);
    assert.equal(record.completion, '40');
    assert.equal(record.totalScore, '0');
    assert.deepEqual(record.categoryScores, []);
  });

  it('COMPLETED but awaiting review: PENDING, no score yet', () => {
    const record = toScoreRecord({
      ...base,
      assessmentStatus: 'COMPLETED',
      scoreStatus: 'PENDING',
      completion: '100.00',
      totalScore: '80.00',
      categoryScores: [{ name: 'A', score: 80 }],
      startedMicros: '1763824260000000',
      finishedMicros: '1763825000000000',
    });
    assert.equal(record.scoreStatus, 'PENDING');
    assert.equal(record.totalScore, '0');
    assert.deepEqual(record.categoryScores, []);
    assert.equal(record.finished, '2025-11-22T15:23:20.0000000+00:00');
  });

  for (const status of ['PASS', 'LOW_PASS', 'FAIL'] as const) {
    it(`COMPLETED/${status}: every score as a string`, () => {
      const record = toScoreRecord({
        ...base,
        assessmentStatus: 'COMPLETED',
        scoreStatus: status,
        completion: '91.67',
        totalScore: '72.50',
        typingWpm: '41.20',
        categoryScores: [
          { name: 'Reasoning', score: 75 },
          { name: 'Writing', score: '66.666' },
        ],
        redFlag: true,
        startedMicros: '1763824260000000',
        finishedMicros: '1763825000000001',
      });
      assert.deepEqual(record, {
        candidateId: 'c1',
        assessmentId: 'a1',
        assessmentName: 'Assessment',
        assessmentStatus: 'COMPLETED',
        scoreStatus: status,
        completion: '91.67',
        totalScore: '72.5',
        typingSpeed: '41.2',
        categoryScores: [
          { name: 'Reasoning', score: '75' },
          { name: 'Writing', score: '66.67' },
        ],
        redFlag: true,
        started: '2025-11-22T15:11:00.0000000+00:00',
        finished: '2025-11-22T15:23:20.0000010+00:00',
      });
    });
  }
});
