-- One row for all the timeline entries of one event: the first in the
-- row's columns, the further ones (a mark's changed conditions and
-- taints) in more, as JSON, an array of [at, kind, reason, message,
-- type] arrays, at '' where it is the first entry's. NULL for an event of
-- one entry, and in every row written before, one an entry, which read
-- back as they did.
ALTER TABLE node_timeline ADD COLUMN more text;
