package viewstore

import "herd/events"

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
