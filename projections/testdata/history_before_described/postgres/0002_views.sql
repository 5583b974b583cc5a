-- The views on PostgreSQL, in the shape SQLite's migrations 0001–0013
-- leave them: the same tables, columns and secondary indexes, in
-- PostgreSQL's types. Flags stay the 0 and 1 SQLite stores (smallint),
-- so that one statement ("deleted = 0") serves both engines; keys are
-- COLLATE "C" so that lists page in byte order, as on SQLite.

-- The lease view of 0001 kept its flag as a boolean; it joins the rest.
ALTER TABLE leases ALTER COLUMN deleted DROP DEFAULT;
ALTER TABLE leases ALTER COLUMN deleted TYPE smallint USING CASE WHEN deleted THEN 1 ELSE 0 END;
ALTER TABLE leases ALTER COLUMN deleted SET DEFAULT 0;

CREATE TABLE nodes (
    name          text     COLLATE "C" PRIMARY KEY,
    kind          text     NOT NULL,
    deleted       smallint NOT NULL DEFAULT 0,
    agent_state   text     NOT NULL,
    ready         text     NOT NULL,
    registered_at bigint   NOT NULL,
    data          bytea    NOT NULL
);

-- A node's last heartbeat lives in a row of its own, so that a heartbeat
-- rewrites it and not the node's whole row.
CREATE TABLE node_heartbeats (
    name           text   COLLATE "C" PRIMARY KEY,
    last_heartbeat bigint NOT NULL,
    data           bytea  NOT NULL
);

CREATE VIEW node_rows AS
SELECT n.name, n.kind, n.deleted, n.agent_state, n.ready, n.registered_at,
       COALESCE(h.last_heartbeat, 0) AS last_heartbeat,
       n.data || '\x00'::bytea || COALESCE(h.data, ''::bytea) AS data
FROM nodes n LEFT JOIN node_heartbeats h ON h.name = n.name;

-- The queries of node_queries.go repeat these predicates word for word,
-- as the planner uses a partial index only for a query that implies it.
CREATE INDEX nodes_with_drain ON nodes (name)
    WHERE position('"drain":{'::bytea IN data) > 0;
CREATE INDEX nodes_with_no_execute ON nodes (name)
    WHERE position('"effect":"NoExecute"'::bytea IN data) > 0;
CREATE INDEX nodes_needing_taint_check ON nodes (name)
    WHERE deleted = 0 AND (ready <> 'True'
        OR position('"key":"node.kubernetes.io/'::bytea IN data) > 0
        OR position('Pressure","status":"True"'::bytea IN data) > 0);

CREATE TABLE node_timeline (
    position bigint NOT NULL,
    seq      integer NOT NULL,
    node     text   COLLATE "C" NOT NULL,
    at       text   NOT NULL,
    kind     text   NOT NULL,
    reason   text   NOT NULL,
    message  text   NOT NULL,
    type     text   NOT NULL DEFAULT 'Normal',
    PRIMARY KEY (position, seq)
);
CREATE INDEX node_timeline_by_node ON node_timeline (node, position);

CREATE TABLE projection_checkpoints (
    projection text PRIMARY KEY,
    position   bigint NOT NULL,
    rebuilt_at text NOT NULL
);

CREATE TABLE fleet_health (
    name             text   PRIMARY KEY,
    version          bigint NOT NULL,
    resource_version bigint NOT NULL,
    data             bytea  NOT NULL
);

CREATE TABLE pods (
    namespace        text     COLLATE "C" NOT NULL,
    name             text     COLLATE "C" NOT NULL,
    uid              text     NOT NULL,
    node_name        text     COLLATE "C" NOT NULL,
    phase            text     NOT NULL,
    terminating      smallint NOT NULL,
    finalized        smallint NOT NULL,
    source           text     NOT NULL,
    version          bigint   NOT NULL,
    resource_version bigint   NOT NULL,
    data             bytea    NOT NULL,
    PRIMARY KEY (namespace, name)
);
CREATE INDEX pods_by_node ON pods (node_name) WHERE finalized = 0;
CREATE INDEX pods_by_phase ON pods (phase) WHERE finalized = 0;

CREATE TABLE configmaps (
    namespace        text     COLLATE "C" NOT NULL,
    name             text     COLLATE "C" NOT NULL,
    deleted          smallint NOT NULL DEFAULT 0,
    version          bigint   NOT NULL,
    resource_version bigint   NOT NULL,
    data             bytea    NOT NULL,
    PRIMARY KEY (namespace, name)
);

CREATE TABLE device_bindings (
    name             text   COLLATE "C" PRIMARY KEY,
    address          text   NOT NULL,
    version          bigint NOT NULL,
    resource_version bigint NOT NULL,
    data             bytea  NOT NULL
);
CREATE INDEX device_bindings_by_address ON device_bindings (address);

CREATE TABLE ip_pools (
    pool             text   COLLATE "C" PRIMARY KEY,
    version          bigint NOT NULL,
    resource_version bigint NOT NULL,
    in_use           bigint NOT NULL
);

CREATE TABLE ip_allocations (
    pool         text   COLLATE "C" NOT NULL,
    address      text   COLLATE "C" NOT NULL,
    pod_uid      text   NOT NULL,
    namespace    text   COLLATE "C" NOT NULL,
    name         text   COLLATE "C" NOT NULL,
    allocated_at text   NOT NULL,
    position     bigint NOT NULL,
    PRIMARY KEY (pool, address)
);
CREATE INDEX ip_allocations_by_pod ON ip_allocations (pod_uid);

CREATE TABLE kubelet_targets (
    name             text   PRIMARY KEY,
    version          bigint NOT NULL,
    resource_version bigint NOT NULL,
    data             bytea  NOT NULL
);

CREATE TABLE namespaces (
    name             text     COLLATE "C" PRIMARY KEY,
    deleted          smallint NOT NULL DEFAULT 0,
    version          bigint   NOT NULL,
    resource_version bigint   NOT NULL,
    data             bytea    NOT NULL
);
