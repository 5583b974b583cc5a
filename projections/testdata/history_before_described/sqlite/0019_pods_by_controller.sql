-- Each pod's controller as "Kind/name" ("" for a pod that has none), so
-- that a workload's reconciler reads its own pods (and the orphans it may
-- adopt) through an index, not every pod of the namespace. Filled from the
-- owners in the pods' rows; kept by every write of a pod after.
ALTER TABLE pods ADD COLUMN controller TEXT NOT NULL DEFAULT '';
UPDATE pods SET controller = COALESCE((
    SELECT json_extract(o.value, '$.kind') || '/' || json_extract(o.value, '$.name')
    FROM json_each(CAST(data AS TEXT), '$.owners') AS o
    WHERE json_extract(o.value, '$.controller') = 1
    LIMIT 1), '');
CREATE INDEX pods_by_controller ON pods (namespace, controller) WHERE finalized = 0;
