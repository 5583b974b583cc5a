package viewstore

import (
	"context"
	"time"

	"herd/events"
)

// NodeIndexedReads are the node view's reads into a node's JSON in
// dialect d, by the method that runs each, with the partial index each
// is written to be answered from: the tests ask the engines for their
// plans.
func NodeIndexedReads(d events.Dialect) []struct{ Method, SQL, Index string } {
	return []struct{ Method, SQL, Index string }{
		{"Draining", nodeDrainingSQL(d), "nodes_with_drain"},
		{"NamesWithNoExecute", nodeNoExecuteSQL(d), "nodes_with_no_execute"},
		{"NamesNeedingTaintCheck", nodeTaintCheckSQL(d), "nodes_needing_taint_check"},
	}
}

// AddAsBefore writes r as a herd before one row an event wrote the node
// timeline: a row of its own at its seq, its column more NULL.
func AddAsBefore(ctx context.Context, x Execer, r TimelineRow) error {
	return exec(ctx, x, "node_timeline",
		"INSERT INTO node_timeline (position, seq, node, at, kind, reason, message, type) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
		r.Position, r.Seq, r.Node, r.At.UTC().Format(time.RFC3339Nano), r.Kind, r.Reason, r.Message, r.Type)
}
