-- The language an attempt's content was shown in (en, de or es), chosen when the attempt starts:
-- the candidate's portal language when the version has that translation, else English (the
-- content's own language, and so the default: every attempt before translations was in English).
-- It stays for the whole attempt.
ALTER TABLE attempts ADD COLUMN content_language text NOT NULL DEFAULT 'en' CHECK (content_language ~ '^[a-z]{2}$');
