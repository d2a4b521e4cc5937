-- The instance's default language for the portal and e-mails, used when neither the invitation
-- nor the candidate's browser names one with a catalogue. Which codes have one is checked by the
-- admin API (src/i18n); the column only keeps it a plain primary language subtag.
ALTER TABLE instances ADD COLUMN default_language text NOT NULL DEFAULT 'en' CHECK (default_language ~ '^[a-z]{2,3}$');
