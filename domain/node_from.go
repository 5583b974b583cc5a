package domain

// NodeFrom is From for nodes: a command made from the node as it stands
// inside the unit of work.
type NodeFrom = From[Node, NodeCommand]
