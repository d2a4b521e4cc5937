-- A console user's saved searches of the candidates list: a name and the list's filters (as the
-- query string the list reads), per instance. Only their owner sees them; they go with the user.
CREATE TABLE saved_searches (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  instance_id uuid NOT NULL REFERENCES instances (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 60),
  query text NOT NULL CHECK (length(query) <= 1000),
  created_at timestamptz NOT NULL,
  UNIQUE (user_id, instance_id, name)
);
