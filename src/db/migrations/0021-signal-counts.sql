-- Proctoring signals per attempt, bounded: a page (or a script posing as one) may report
-- thousands of focus changes or pastes, and each signal used to be stored and re-read to judge
-- the red flag (quadratic: 20,000 signals made one attempt's PDF take 5 s). An attempt now keeps
-- the count of every kind in `signal_counts` ({"paste": 1234, ...}), from which the red flag is
-- judged, and stores the first signals as rows (the timeline a reviewer reads), up to a bound set
-- by the attempts module; beyond it only the counts grow.
ALTER TABLE attempts ADD COLUMN signal_counts jsonb NOT NULL DEFAULT '{}';
UPDATE attempts a SET signal_counts = c.counts
  FROM (SELECT attempt_id, jsonb_object_agg(kind, n) AS counts
          FROM (SELECT attempt_id, kind, count(*) AS n FROM proctor_signals GROUP BY attempt_id, kind) k GROUP BY attempt_id) c
 WHERE a.id = c.attempt_id;
