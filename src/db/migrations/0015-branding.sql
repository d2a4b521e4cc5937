-- Per-instance branding: whose assessment the candidate is taking. Every column is optional; without
-- them the portal and the e-mail name the company by the sender name, else the instance name.
ALTER TABLE instances
  ADD COLUMN display_name text CHECK (display_name IS NULL OR (length(display_name) BETWEEN 1 AND 100 AND display_name = btrim(display_name) AND display_name !~ '[\r\n]')),
  ADD COLUMN accent_color text CHECK (accent_color IS NULL OR accent_color ~ '^#[0-9A-F]{6}$'),
  ADD COLUMN support_email text CHECK (support_email IS NULL OR (length(support_email) <= 254 AND support_email ~ '^[^@\s]+@[^@\s]+$')),
  ADD COLUMN privacy_url text CHECK (privacy_url IS NULL OR (length(privacy_url) <= 500 AND privacy_url ~ '^(https://|http://(localhost|127\.0\.0\.1|\[::1\])(:[0-9]+)?(/|$))'));

-- The logo lives beside the instance row, so that the row read on every request stays small.
-- Served at a URL with its hash in it: immutable, cached for a year.
CREATE TABLE instance_logos (
  instance_id uuid PRIMARY KEY REFERENCES instances (id) ON DELETE CASCADE,
  content_type text NOT NULL CHECK (content_type IN ('image/png', 'image/jpeg', 'image/webp')),
  bytes bytea NOT NULL CHECK (octet_length(bytes) BETWEEN 1 AND 204800),
  sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
  updated_at timestamptz NOT NULL DEFAULT now()
);
