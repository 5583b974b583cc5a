-- The nodes whose condition taints may disagree with their conditions:
-- Ready not True, a condition taint on (node.kubernetes.io/...), or a
-- pressure condition True. The health rules' full resync checks these
-- instead of every node; in a healthy fleet the index is empty. The JSON
-- tests are substrings of what encoding/json writes for a taint ("key"
-- first) and a condition ("type" then "status"); a false match costs a
-- read of that node, never an action.
CREATE INDEX nodes_needing_taint_check ON nodes (name)
    WHERE deleted = 0 AND (ready <> 'True'
        OR instr(CAST(data AS TEXT), '"key":"node.kubernetes.io/') > 0
        OR instr(CAST(data AS TEXT), 'Pressure","status":"True"') > 0);
