-- Webhooks: endpoints per instance, the transactional outbox of events, one delivery per event
-- and endpoint with its schedule, and every attempt made.

CREATE TABLE webhook_endpoints (
  id                  text PRIMARY KEY CHECK (id ~ '^ep_[0-9a-f]{16}$'),
  instance_id         uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  url                 text NOT NULL CHECK (url ~ '^https?://' AND length(url) <= 2000),
  -- Event types delivered; empty: every type.
  events              text[] NOT NULL DEFAULT '{}',
  -- The signing secret (whsec_…). It must be kept to sign, so it is stored; only the endpoint's
  -- owner sees it, once, when it is made or rotated.
  secret              text NOT NULL,
  -- After a rotation the previous secret signs too until previous_until.
  previous_secret     text,
  previous_until      timestamptz,
  description         text,
  disabled_at         timestamptz,
  disabled_reason     text,
  -- Set at the first failure after a success, cleared by a success; 5 days of it disable the endpoint.
  failing_since       timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhook_endpoints_instance ON webhook_endpoints (instance_id);

-- The outbox: one row per event, written in the transaction of the change it describes.
CREATE TABLE outbox_events (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  message_id  text NOT NULL UNIQUE CHECK (message_id ~ '^msg_[0-9A-Za-z]{22,32}$'),
  instance_id uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  type        text NOT NULL,
  -- The whole body as it is sent: {type, timestamp, data}.
  body        text NOT NULL,
  created_at  timestamptz NOT NULL
);
CREATE INDEX outbox_events_instance ON outbox_events (instance_id, id);

-- One delivery of one event to one endpoint, made in the same transaction as the event.
CREATE TABLE webhook_deliveries (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  event_id        bigint NOT NULL REFERENCES outbox_events (id) ON DELETE CASCADE,
  endpoint_id     text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  -- A node working on it holds it until then; another node may take it after (a crashed node).
  locked_until    timestamptz,
  created_at      timestamptz NOT NULL,
  UNIQUE (event_id, endpoint_id)
);
-- The claim reads only what is due: pending rows by their next attempt.
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, id);

CREATE TABLE webhook_attempts (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id  bigint NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  at           timestamptz NOT NULL,
  -- The HTTP status, or null when there was no answer (refused address, timeout, connection error).
  status_code  integer,
  duration_ms  integer NOT NULL,
  -- The first 1 KB of the answer, or what went wrong.
  response     text NOT NULL
);
CREATE INDEX webhook_attempts_delivery ON webhook_attempts (delivery_id, id);
