-- A timeline entry's type, as a Kubernetes Event's: Warning for what an
-- operator should look at (a node NotReady, silent or restarted, a
-- pressure condition True, a failed kubelet poll, a taint herd put for
-- trouble, pods evicted by a drain), Normal for the rest. Rows written
-- before the column existed are typed here by the same rules, read from
-- their kind, reason and message; `herd replay` rewrites them exactly.
ALTER TABLE node_timeline ADD COLUMN type TEXT NOT NULL DEFAULT 'Normal';
UPDATE node_timeline SET type = 'Warning'
    WHERE kind IN ('HeartbeatMissed', 'BecameNotReady', 'ScrapeFailed', 'Restarted', 'Draining')
        OR (kind = 'Tainted' AND reason <> 'set by an operator')
        OR (kind = 'ConditionChanged' AND (
            ((message LIKE 'Ready %' OR message LIKE 'KubeletReachable %') AND (message LIKE '% -> False%' OR message LIKE '% -> Unknown%'))
            OR (message NOT LIKE 'Ready %' AND message NOT LIKE 'KubeletReachable %' AND (message LIKE '% -> True%' OR message LIKE '% -> Unknown%'))));
