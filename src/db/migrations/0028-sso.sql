-- Single sign-on with OpenID Connect, per instance. The users module owns all three.

-- An instance's identity provider: where to find it (the issuer, whose discovery document names
-- the endpoints and keys), the service's client there (the secret sealed with a server key, the
-- instance's id bound in), which addresses may sign in, and what a first sign-in makes.
CREATE TABLE instance_sso (
  instance_id        uuid PRIMARY KEY REFERENCES instances (id) ON DELETE CASCADE,
  -- "Sign in with <display_name>" on the sign-in page.
  display_name       text NOT NULL CHECK (length(display_name) BETWEEN 1 AND 60),
  issuer             text NOT NULL CHECK (length(issuer) <= 500),
  client_id          text NOT NULL CHECK (length(client_id) BETWEEN 1 AND 500),
  sealed_secret      bytea NOT NULL,
  secret_hint        text NOT NULL,
  -- Lower-case domains; an e-mail address must end in @ one of them.
  allowed_domains    text[] NOT NULL CHECK (cardinality(allowed_domains) BETWEEN 1 AND 50),
  -- Just-in-time creation: a verified address of an allowed domain without an account gets one.
  jit                boolean NOT NULL DEFAULT false,
  default_role       text NOT NULL DEFAULT 'reviewer' CHECK (default_role IN ('manager', 'reviewer')),
  -- The instance's managers and reviewers may not sign in with a password (owners still may).
  password_sign_in_off boolean NOT NULL DEFAULT false,
  -- The first single sign-on that succeeded: password sign-in may be turned off only after one.
  first_success_at   timestamptz,
  updated_at         timestamptz NOT NULL,
  CHECK (NOT password_sign_in_off OR first_success_at IS NOT NULL)
);

-- A sign-in on its way through the identity provider: the browser holds a random handle in a
-- cookie, this row (by the handle's SHA-256) holds what the callback checks against. Used once:
-- the callback deletes it before anything else.
CREATE TABLE sso_sign_ins (
  handle_hash   bytea PRIMARY KEY CHECK (length(handle_hash) = 32),
  instance_id   uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  state         text NOT NULL,
  nonce         text NOT NULL,
  code_verifier text NOT NULL,
  next          text,
  expires_at    timestamptz NOT NULL
);
CREATE INDEX sso_sign_ins_expiry ON sso_sign_ins (expires_at);

-- A session opened by single sign-on: the identity provider checked the factors, so the service's
-- own password and second-factor steps do not apply to it.
ALTER TABLE console_sessions ADD COLUMN via_sso boolean NOT NULL DEFAULT false;
