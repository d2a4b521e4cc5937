-- The core: tenants, API keys, assessments with their versions, candidates, invitations and
-- the single-sign-on links that open them. Constraints live here, not only in code.

CREATE TABLE instances (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name            text NOT NULL UNIQUE CHECK (name ~ '^[a-z][a-z0-9-]{0,62}$'),
  portal_url      text CHECK (portal_url ~ '^https?://'),
  invite_ttl_days integer NOT NULL DEFAULT 14 CHECK (invite_ttl_days BETWEEN 1 AND 365),
  created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id           text PRIMARY KEY CHECK (id ~ '^key_[0-9a-f]{16}$'),
  -- sha256 of the whole key; the key itself is never stored.
  hash         bytea NOT NULL UNIQUE CHECK (length(hash) = 32),
  -- The first characters of the key, so that an operator can tell keys apart.
  prefix       text NOT NULL,
  label        text,
  rate_limit   integer CHECK (rate_limit > 0),
  expires_at   timestamptz,
  revoked_at   timestamptz,
  last_used_at timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_key_instances (
  key_id      text NOT NULL REFERENCES api_keys (id) ON DELETE CASCADE,
  instance_id uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  PRIMARY KEY (key_id, instance_id)
);

-- One row per assessment of an instance, carrying the summary of its current version, which is
-- what clients list; every published version stays in assessment_versions.
CREATE TABLE assessments (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  instance_id      uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  slug             text NOT NULL CHECK (slug ~ '^[a-z][a-z0-9-]{0,63}$'),
  current_version  integer NOT NULL,
  name             text NOT NULL,
  description      text NOT NULL,
  duration_minutes integer NOT NULL CHECK (duration_minutes > 0),
  categories       text[] NOT NULL,
  typing_test      boolean NOT NULL,
  question_count   integer NOT NULL,
  pass_score       numeric(5, 2) NOT NULL,
  low_pass_score   numeric(5, 2) NOT NULL,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (instance_id, slug)
);

CREATE TABLE assessment_versions (
  assessment_id uuid NOT NULL REFERENCES assessments (id) ON DELETE CASCADE,
  version       integer NOT NULL CHECK (version > 0),
  content       jsonb NOT NULL,
  content_hash  text NOT NULL,
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (assessment_id, version)
);

CREATE TABLE candidates (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  instance_id uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  email       text NOT NULL,
  first_name  text NOT NULL CHECK (first_name <> ''),
  last_name   text NOT NULL CHECK (last_name <> ''),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
-- The same person within an instance is the same e-mail, whatever its case.
CREATE UNIQUE INDEX candidates_instance_email ON candidates (instance_id, lower(email));

-- One row per (candidate, assessment): the record GET /v1/score reports.
CREATE TABLE invitations (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  instance_id       uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  candidate_id      uuid NOT NULL REFERENCES candidates (id) ON DELETE CASCADE,
  assessment_id     uuid NOT NULL REFERENCES assessments (id) ON DELETE CASCADE,
  assessment_status text NOT NULL DEFAULT 'INVITED' CHECK (assessment_status IN ('INVITED', 'IN_PROGRESS', 'COMPLETED')),
  score_status      text NOT NULL DEFAULT 'PENDING' CHECK (score_status IN ('PENDING', 'LOW_PASS', 'PASS', 'FAIL')),
  completion        numeric(5, 2) NOT NULL DEFAULT 0 CHECK (completion BETWEEN 0 AND 100),
  total_score       numeric(5, 2) NOT NULL DEFAULT 0 CHECK (total_score BETWEEN 0 AND 100),
  typing_wpm        numeric(6, 2) NOT NULL DEFAULT 0 CHECK (typing_wpm >= 0),
  category_scores   jsonb NOT NULL DEFAULT '[]',
  red_flag          boolean NOT NULL DEFAULT false,
  started_at        timestamptz,
  finished_at       timestamptz,
  created_at        timestamptz NOT NULL DEFAULT now(),
  UNIQUE (candidate_id, assessment_id),
  CHECK (finished_at IS NULL OR started_at IS NOT NULL),
  CHECK ((assessment_status = 'INVITED') = (started_at IS NULL)),
  CHECK ((assessment_status = 'COMPLETED') = (finished_at IS NOT NULL)),
  CHECK (score_status = 'PENDING' OR assessment_status = 'COMPLETED')
);
CREATE INDEX invitations_instance ON invitations (instance_id, id);
CREATE INDEX invitations_assessment ON invitations (assessment_id, id);

-- The single-sign-on links: one per invite call, each opening the assessments it covers.
CREATE TABLE invite_links (
  id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  instance_id    uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  candidate_id   uuid NOT NULL REFERENCES candidates (id) ON DELETE CASCADE,
  -- sha256 of the session token; the token itself is only in the link.
  token_hash     bytea NOT NULL UNIQUE CHECK (length(token_hash) = 32),
  assessment_ids uuid[] NOT NULL CHECK (cardinality(assessment_ids) > 0),
  expires_at     timestamptz NOT NULL,
  revoked_at     timestamptz,
  created_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invite_links_candidate ON invite_links (candidate_id);
