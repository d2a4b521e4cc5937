-- People who sign in to the console: owners (everything), managers and reviewers (the instances
-- granted to them). Passwords are stored as scrypt hashes only; sessions as hashes of the cookie.

CREATE TABLE users (
  id                  uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email               text NOT NULL CHECK (email ~ '^[^@\s]+@[^@\s]+$' AND length(email) <= 254),
  role                text NOT NULL CHECK (role IN ('owner', 'manager', 'reviewer')),
  -- scrypt$<log2 N>$<r>$<p>$<salt base64>$<hash base64>
  password_hash       text NOT NULL CHECK (password_hash LIKE 'scrypt$%'),
  disabled_at         timestamptz,
  created_at          timestamptz NOT NULL DEFAULT now(),
  password_changed_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email ON users (lower(email));

-- The instances a manager or reviewer works on; owners see every instance without rows here.
CREATE TABLE user_instances (
  user_id     uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  instance_id uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  PRIMARY KEY (user_id, instance_id)
);

CREATE TABLE console_sessions (
  -- sha256 of the cookie value; the value itself is only in the user's browser.
  token_hash   bytea PRIMARY KEY CHECK (length(token_hash) = 32),
  user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  csrf_token   text NOT NULL,
  created_at   timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  -- The absolute end; the idle end is last_seen_at + the idle timeout.
  expires_at   timestamptz NOT NULL
);
CREATE INDEX console_sessions_user ON console_sessions (user_id);
CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);

-- The console finds candidates by the start of their e-mail, first name, last name or full name,
-- whatever the case or accents. PGlite has no unaccent extension, so the folded forms are columns
-- written with the row (by the candidates module); rows from before get a Latin-1 folding here.
ALTER TABLE candidates ADD COLUMN search_name text, ADD COLUMN search_last text;
UPDATE candidates SET
  search_name = translate(lower(first_name || ' ' || last_name), 'àáâãäåçèéêëìíîïñòóôõöøùúûüýÿ', 'aaaaaaceeeeiiiinoooooouuuuyy'),
  search_last = translate(lower(last_name), 'àáâãäåçèéêëìíîïñòóôõöøùúûüýÿ', 'aaaaaaceeeeiiiinoooooouuuuyy');
CREATE INDEX candidates_search_email ON candidates (instance_id, lower(email) text_pattern_ops);
CREATE INDEX candidates_search_name ON candidates (instance_id, search_name text_pattern_ops);
CREATE INDEX candidates_search_last ON candidates (instance_id, search_last text_pattern_ops);
CREATE INDEX candidates_instance_id ON candidates (instance_id, id);

-- A review says who scored it and why.
ALTER TABLE answers ADD COLUMN review_comment text CHECK (length(review_comment) <= 2000), ADD COLUMN reviewed_by text;
