-- Audit log of operator actions: every state-changing admin request that passed the token check,
-- with who (the token, from which address and client), what, on what, and how it ended. Never
-- request bodies, keys or tokens.

CREATE TABLE audit_log (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at          timestamptz NOT NULL DEFAULT now(),
  actor       text NOT NULL,
  client_ip   text NOT NULL,
  user_agent  text,
  action      text NOT NULL,
  target      text,
  request_id  text NOT NULL,
  status      integer NOT NULL CHECK (status BETWEEN 100 AND 599)
);
