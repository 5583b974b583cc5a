-- Each ReplicaSet's controller as "Kind/name" ("" for none), as SQLite's
-- migration 0020 adds it.
ALTER TABLE replicasets ADD COLUMN controller text COLLATE "C" NOT NULL DEFAULT '';
UPDATE replicasets SET controller = COALESCE((
    SELECT (o->>'kind') || '/' || (o->>'name')
    FROM jsonb_array_elements(COALESCE(convert_from(data, 'UTF8')::jsonb->'owners', '[]'::jsonb)) AS o
    WHERE (o->>'controller')::boolean
    LIMIT 1), '');
CREATE INDEX replicasets_by_controller ON replicasets (namespace, controller) WHERE deleted = 0;
