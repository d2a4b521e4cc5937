-- Four more applicant-tracking systems with adapters of their own (Workable, HiBob, Lever,
-- SmartRecruiters), and what they need of an instance beyond one API key: several secrets (sealed
-- together, as the key is) and settings that are no secret (HiBob's company id, Lever's stage).

ALTER TABLE invitations DROP CONSTRAINT invitations_source_check;
ALTER TABLE invitations ADD CONSTRAINT invitations_source_check
  CHECK (source IN ('api', 'console', 'greenhouse', 'ashby', 'workable', 'hibob', 'lever', 'smartrecruiters'));

ALTER TABLE partner_links DROP CONSTRAINT partner_links_partner_check;
ALTER TABLE partner_links ADD CONSTRAINT partner_links_partner_check
  CHECK (partner IN ('greenhouse', 'ashby', 'workable', 'hibob', 'lever', 'smartrecruiters'));

ALTER TABLE partner_settings DROP CONSTRAINT partner_settings_partner_check;
ALTER TABLE partner_settings ADD CONSTRAINT partner_settings_partner_check
  CHECK (partner IN ('greenhouse', 'ashby', 'workable', 'hibob', 'lever', 'smartrecruiters'));

-- The instance's secrets at the ATS by name (a JSON object, sealed with AES-256-GCM under a server
-- secret; never shown again), the last four characters of each, and the settings that are no secret.
ALTER TABLE partner_settings
  ADD COLUMN sealed_secrets bytea,
  ADD COLUMN secret_hints jsonb NOT NULL DEFAULT '{}',
  ADD COLUMN options jsonb NOT NULL DEFAULT '{}';
