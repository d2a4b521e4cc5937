-- Tags keep what the user typed: `label` is the tag as shown ("Round 1"); `tag` stays the key it
-- is compared by (lower case, spaces as -: "round-1"), so "round 1" and "ROUND-1" are the same tag.
-- Tags stored before have no label and are shown as their key.
ALTER TABLE candidate_tags ADD COLUMN label text CHECK (label IS NULL OR (char_length(label) BETWEEN 1 AND 32 AND lower(regexp_replace(label, '\s+', '-', 'g')) = tag));
