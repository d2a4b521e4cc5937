-- Signed report links for recruiters: each instance has its own signing key (rotating it voids
-- every link signed before), and single links can be revoked until they would have expired.
CREATE TABLE report_link_keys (
  instance_id uuid PRIMARY KEY REFERENCES instances (id) ON DELETE CASCADE,
  secret      bytea NOT NULL CHECK (octet_length(secret) >= 32),
  created_at  timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE revoked_report_links (
  signature   text PRIMARY KEY,
  instance_id uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  expires_at  timestamptz NOT NULL,
  revoked_at  timestamptz NOT NULL DEFAULT now()
);

-- How long a report link stays valid, per instance (default 90 days).
ALTER TABLE instances ADD COLUMN report_link_days integer NOT NULL DEFAULT 90 CHECK (report_link_days BETWEEN 1 AND 3650);
