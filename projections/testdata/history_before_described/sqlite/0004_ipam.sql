-- The IPAM view: every IP pool that ever handed out an address, and the
-- addresses in use. A pool's aggregate snapshot is its ip_pools row (its
-- stream version) together with its ip_allocations rows; the allocations
-- are rows rather than one JSON document so that allocating in a pool of
-- thousands rewrites one row, not all of them.
CREATE TABLE ip_pools (
    pool             TEXT PRIMARY KEY,
    version          INTEGER NOT NULL,
    resource_version INTEGER NOT NULL,
    in_use           INTEGER NOT NULL
) WITHOUT ROWID;

-- One row per address in use. allocated_at is RFC 3339 (herd's clock);
-- position is the log position of the IPAllocated event.
CREATE TABLE ip_allocations (
    pool         TEXT NOT NULL,
    address      TEXT NOT NULL,
    pod_uid      TEXT NOT NULL,
    namespace    TEXT NOT NULL,
    name         TEXT NOT NULL,
    allocated_at TEXT NOT NULL,
    position     INTEGER NOT NULL,
    PRIMARY KEY (pool, address)
) WITHOUT ROWID;
CREATE INDEX ip_allocations_by_pod ON ip_allocations (pod_uid);
