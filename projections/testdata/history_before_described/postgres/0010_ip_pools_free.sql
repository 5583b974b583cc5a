-- Where a pool's free addresses are, so that allocating one reads the
-- pool's row and not its every allocation: "version@next;from-to,..." by
-- offset into the pool, such as "57@120;3-5,9-10" (see projections/ipam.go).
-- NULL in a row an older herd wrote; herd derives it from the pool's
-- allocations at its next start, and on the first read until then.
ALTER TABLE ip_pools ADD COLUMN free text;
