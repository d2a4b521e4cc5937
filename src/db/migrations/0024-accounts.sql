-- Console accounts that pass a security review: a password handed out by the operator is changed
-- at first sign-in, TOTP second factor (RFC 6238) with single-use recovery codes, and sessions
-- that are only half open between the password and the second factor. The users module owns all.

-- Set when the operator (admin API, CLI, an owner in the console) gave the password: the user is
-- sent to change it and can do nothing else until done.
ALTER TABLE users ADD COLUMN must_change_password boolean NOT NULL DEFAULT false;

-- The TOTP secret, AES-256-GCM encrypted (version | nonce | ciphertext | tag) under a key derived
-- from console_secrets; the user id is the associated data, so a secret cannot be moved to another
-- account. totp_pending holds an enrolment not yet confirmed with a code.
ALTER TABLE users
  ADD COLUMN totp_secret     bytea,
  ADD COLUMN totp_pending    bytea,
  ADD COLUMN totp_enabled_at timestamptz,
  -- The last 30-second step a code was accepted for: a code is good once (RFC 6238 section 5.2).
  ADD COLUMN totp_last_step  bigint;

-- Ten single-use recovery codes per enrolment, stored as SHA-256 hashes (the codes are random,
-- 60 bits each, shown once).
CREATE TABLE user_recovery_codes (
  user_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash bytea NOT NULL CHECK (length(code_hash) = 32),
  used_at   timestamptz,
  PRIMARY KEY (user_id, code_hash)
);

-- A session opened by the password of an account with a second factor waits for the code: it
-- reaches nothing but the code page until then.
ALTER TABLE console_sessions ADD COLUMN second_factor_pending boolean NOT NULL DEFAULT false;

-- Per instance: every console user of the instance must have a second factor (owners, who have
-- every instance, too); users without one are sent to enrol after signing in.
ALTER TABLE instances ADD COLUMN require_two_factor boolean NOT NULL DEFAULT false;

-- Secrets of the users module every node shares ('totp' encrypts TOTP secrets), made once by
-- whichever node needs one first, like server_secrets.
CREATE TABLE console_secrets (
  name       text PRIMARY KEY,
  secret     bytea NOT NULL CHECK (octet_length(secret) >= 32),
  created_at timestamptz NOT NULL DEFAULT now()
);
