-- The ConfigMap view: one row per ConfigMap ever created, keyed by
-- namespace and name. data is the JSON of domain.ConfigMap, which doubles
-- as the aggregate snapshot. Deleted ConfigMaps stay as tombstones so that
-- their stream version survives a later creation under the same name.
CREATE TABLE configmaps (
    namespace        TEXT NOT NULL,
    name             TEXT NOT NULL,
    deleted          INTEGER NOT NULL DEFAULT 0,
    version          INTEGER NOT NULL,
    resource_version INTEGER NOT NULL,
    data             BLOB NOT NULL,
    PRIMARY KEY (namespace, name)
) WITHOUT ROWID;

-- Device bindings, kept with the ConfigMaps because devices read their
-- configuration through the same listener that binds them: which address
-- may speak for a device name. address is '' once an admin released it.
-- The index answers "which names is this address bound to", asked on
-- every ConfigMap read through the device listener.
CREATE TABLE device_bindings (
    name             TEXT PRIMARY KEY,
    address          TEXT NOT NULL,
    version          INTEGER NOT NULL,
    resource_version INTEGER NOT NULL,
    data             BLOB NOT NULL
) WITHOUT ROWID;
CREATE INDEX device_bindings_by_address ON device_bindings (address);
