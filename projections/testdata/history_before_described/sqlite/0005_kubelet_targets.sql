-- The kubelets herd polls: one row, the KubeletTargets aggregate of the
-- kubelet/targets stream, as fleet_health holds the fleet's. A few hundred
-- targets make a row of some tens of kilobytes, rewritten only when an
-- operator changes a target.
CREATE TABLE kubelet_targets (
    name             TEXT PRIMARY KEY,
    version          INTEGER NOT NULL,
    resource_version INTEGER NOT NULL,
    data             BLOB NOT NULL
) WITHOUT ROWID;
