-- Media files are served in parts (a player's range requests): a file's bytes are kept out of line
-- and uncompressed (STORAGE EXTERNAL), so that substring() of them reads only the chunks (about
-- 2 kB each) of the part asked for, not the whole file. Media is compressed already (MP3, MP4,
-- PNG…): little is lost. The files stored before are written again, to be stored so too.
ALTER TABLE assessment_media ALTER COLUMN bytes SET STORAGE EXTERNAL;
UPDATE assessment_media SET bytes = bytes || ''::bytea;
