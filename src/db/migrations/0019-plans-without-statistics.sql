-- Plans that do not depend on fresh statistics. A score read by candidate asks for
-- `instance_id = $1 AND candidate_id = $2`: with only invitations_candidate (candidate_id) and
-- invitations_instance (instance_id, id), a table never analyzed (PGlite has no autovacuum, and a
-- server may run without it) is planned with the default 0.5% selectivity for each equality, and
-- the planner combined both indexes in a BitmapAnd that read every invitation of the instance on
-- each read (8,070 index entries at 4,000 invitations; 241-257 us of PostgreSQL CPU per read
-- against about 60 after ANALYZE). One index answering both conditions, in id order, leaves no
-- second index to add: a bitmap of invitations_instance would only repeat a condition already used.
CREATE INDEX invitations_candidate_instance ON invitations (candidate_id, instance_id, id);
-- Redundant now: its column leads this index and the unique (candidate_id, assessment_id) one.
DROP INDEX invitations_candidate;
