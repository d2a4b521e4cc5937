-- The instance's time zone (IANA, e.g. Europe/Berlin): deadlines in candidates' e-mails are given
-- in it, with its offset named. UTC until an owner or the operator sets it.
ALTER TABLE instances ADD COLUMN time_zone text NOT NULL DEFAULT 'UTC' CHECK (length(time_zone) BETWEEN 1 AND 64);
