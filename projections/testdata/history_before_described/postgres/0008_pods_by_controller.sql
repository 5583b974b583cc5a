-- Each pod's controller as "Kind/name" ("" for none), as SQLite's
-- migration 0019 adds it: a workload's reconciler reads its own pods
-- through an index.
ALTER TABLE pods ADD COLUMN controller text COLLATE "C" NOT NULL DEFAULT '';
UPDATE pods SET controller = COALESCE((
    SELECT (o->>'kind') || '/' || (o->>'name')
    FROM jsonb_array_elements(COALESCE(convert_from(data, 'UTF8')::jsonb->'owners', '[]'::jsonb)) AS o
    WHERE (o->>'controller')::boolean
    LIMIT 1), '');
CREATE INDEX pods_by_controller ON pods (namespace, controller) WHERE finalized = 0;
