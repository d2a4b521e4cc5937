-- Secrets every node must share, made once by whichever node needs one first (random bytes from
-- the application, inserted with ON CONFLICT DO NOTHING, so that all nodes read the same value).
-- 'score-cursor' encrypts the paging cursors of GET /v1/score.
CREATE TABLE server_secrets (
  name       text PRIMARY KEY,
  secret     bytea NOT NULL CHECK (octet_length(secret) >= 32),
  created_at timestamptz NOT NULL DEFAULT now()
);
