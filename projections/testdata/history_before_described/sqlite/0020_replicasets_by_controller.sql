-- Each ReplicaSet's controller as "Kind/name" ("" for none), so that a
-- Deployment's reconciler reads its own ReplicaSets through an index, not
-- every ReplicaSet of the namespace. Filled from the rows' owners; kept
-- by every write of a ReplicaSet after.
ALTER TABLE replicasets ADD COLUMN controller TEXT NOT NULL DEFAULT '';
UPDATE replicasets SET controller = COALESCE((
    SELECT json_extract(o.value, '$.kind') || '/' || json_extract(o.value, '$.name')
    FROM json_each(CAST(data AS TEXT), '$.owners') AS o
    WHERE json_extract(o.value, '$.controller') = 1
    LIMIT 1), '');
CREATE INDEX replicasets_by_controller ON replicasets (namespace, controller) WHERE deleted = 0;
