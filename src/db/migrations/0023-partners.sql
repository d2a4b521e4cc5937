-- Applicant-tracking systems that call the service in their own shapes (Greenhouse, Ashby): where
-- an invitation came from, the ATS's identifiers of it, the callbacks owed to the ATS, and the
-- instance's credentials for calling the ATS back.

-- Where an invitation was first made, and a reference the client keeps for it (an application id).
ALTER TABLE invitations
  ADD COLUMN source text NOT NULL DEFAULT 'api' CHECK (source IN ('api', 'console', 'greenhouse', 'ashby')),
  ADD COLUMN external_reference text CHECK (char_length(external_reference) BETWEEN 1 AND 200);

-- One request of an ATS that started an assessment: Greenhouse's partner_interview_id or Ashby's
-- assessment_id is `public_id`. `request_key` makes the same request again find the same link.
-- Several links may share an invitation (two applications of one candidate to one assessment).
CREATE TABLE partner_links (
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  public_id    text NOT NULL UNIQUE,
  instance_id  uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  invitation_id bigint NOT NULL REFERENCES invitations (id) ON DELETE CASCADE,
  partner      text NOT NULL CHECK (partner IN ('greenhouse', 'ashby')),
  request_key  text NOT NULL,
  -- Where the ATS wants to be told (Greenhouse's `url`); NULL where the ATS has one API (Ashby).
  callback_url text,
  -- The events of the invitation the ATS is called back for (the adapter's choice).
  events       text[] NOT NULL DEFAULT '{}',
  -- The ATS's identifiers and what it sent about the candidate, as it sent them.
  external     jsonb NOT NULL DEFAULT '{}',
  created_at   timestamptz NOT NULL DEFAULT now(),
  UNIQUE (instance_id, partner, request_key)
);
CREATE INDEX partner_links_invitation ON partner_links (invitation_id);

-- Callbacks owed to an ATS, in the order their events happened: a link's next callback is sent
-- only once the one before it succeeded or was given up, so the ATS never hears a later state first.
CREATE TABLE partner_callbacks (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  link_id         bigint NOT NULL REFERENCES partner_links (id) ON DELETE CASCADE,
  instance_id     uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  event           text NOT NULL,
  body            text,
  status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempts        integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  locked_until    timestamptz,
  last_attempt_at timestamptz,
  last_status     integer,
  last_response   text,
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX partner_callbacks_due ON partner_callbacks (next_attempt_at) WHERE status = 'pending';
CREATE INDEX partner_callbacks_link ON partner_callbacks (link_id, id);
CREATE INDEX partner_callbacks_instance ON partner_callbacks (instance_id, id);

-- An instance's settings for one ATS: its API key for calling the ATS back (sealed with
-- AES-256-GCM under a server secret; never shown again, only its last four characters), and
-- whether the service e-mails the candidate (or the ATS sends the link itself).
CREATE TABLE partner_settings (
  instance_id  uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  partner      text NOT NULL CHECK (partner IN ('greenhouse', 'ashby')),
  sealed_key   bytea,
  key_hint     text,
  send_email   boolean NOT NULL DEFAULT true,
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (instance_id, partner)
);
