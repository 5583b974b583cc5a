-- Two small indexes over what the node rows' JSON says, so that the drain
-- and NoExecute reconcilers find the few nodes they act on without
-- decoding every node. Both are partial: they hold only the nodes that
-- match, and the test is a plain substring of the row's JSON, which
-- encoding/json writes without spaces. A match is checked again on the
-- decoded node, so a false one costs a read, never an action.
--
-- Nodes with a drain (in progress or done): "drain":{ ...
CREATE INDEX nodes_with_drain ON nodes (name)
    WHERE instr(CAST(data AS TEXT), '"drain":{') > 0;

-- Nodes with at least one NoExecute taint: "effect":"NoExecute".
CREATE INDEX nodes_with_no_execute ON nodes (name)
    WHERE instr(CAST(data AS TEXT), '"effect":"NoExecute"') > 0;
