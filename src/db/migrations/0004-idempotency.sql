-- Idempotency-Key on POST /v1/invite: one row per (API key, instance, client's key). A row with
-- no status is a request still in flight; once answered it holds what was answered, so that a
-- retry gets the same answer without inviting or e-mailing again. Rows live 24 hours.

CREATE TABLE idempotency_keys (
  key_id          text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  instance_id     uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  idempotency_key text NOT NULL CHECK (idempotency_key ~ '^[ -~]{1,255}$'),
  -- sha256 (hex) of the canonical JSON of the body and the sendInvite parameter.
  fingerprint     text NOT NULL CHECK (fingerprint ~ '^[0-9a-f]{64}$'),
  -- NULL while the first request is in flight.
  status          integer CHECK (status BETWEEN 100 AND 599),
  response        jsonb,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (key_id, instance_id, idempotency_key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);
