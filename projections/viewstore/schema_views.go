package viewstore

import "herd/events"

// Tables describes the views' tables that viewstore's own stores keep,
// other than the kinds' (ObjectTable): the pods', the namespaces', the
// device bindings', the IP addresses', the two single-row aggregates',
// the leases', the rebuilds' checkpoints, the nodes' two rows and the
// node timeline. DB.Ensure makes them from here on a new database, and
// brings those an older herd made with its files up to them (on SQLite,
// after SplitNodesTable has brought a nodes table made before the
// hot/cold split to the split's columns). What they gain — a column, an
// index — is added to the description, not written in a file.
func Tables() []Table {
	singles := func(table string) Table {
		return Table{
			Name: table,
			Columns: []Column{
				{Name: "name", Type: TypeText},
				{Name: "version", Type: TypeInt},
				{Name: "resource_version", Type: TypeInt},
				{Name: "data", Type: TypeBytes},
			},
			Key: []string{"name"},
		}
	}
	return []Table{
		{
			Name: "pods",
			Columns: []Column{
				{Name: "namespace", Type: TypeKeyText},
				{Name: "name", Type: TypeKeyText},
				{Name: "uid", Type: TypeText},
				{Name: "node_name", Type: TypeKeyText},
				{Name: "phase", Type: TypeText},
				{Name: "terminating", Type: TypeFlag},
				{Name: "finalized", Type: TypeFlag},
				{Name: "source", Type: TypeText},
				{Name: "version", Type: TypeInt},
				{Name: "resource_version", Type: TypeInt},
				{Name: "data", Type: TypeBytes},
				{Name: "controller", Type: TypeKeyText, Default: "''", Fill: controllerFill("pods")},
			},
			Key: []string{"namespace", "name"},
			Indexes: []TableIndex{
				{Name: "pods_by_node", Columns: []string{"node_name"}, Where: "finalized = 0"},
				{Name: "pods_by_phase", Columns: []string{"phase"}, Where: "finalized = 0"},
				{Name: "pods_by_controller", Columns: []string{"namespace", "controller"}, Where: "finalized = 0"},
			},
		},
		{
			Name: "namespaces",
			Columns: []Column{
				{Name: "name", Type: TypeKeyText},
				{Name: "deleted", Type: TypeFlag, Default: "0"},
				{Name: "version", Type: TypeInt},
				{Name: "resource_version", Type: TypeInt},
				{Name: "data", Type: TypeBytes},
			},
			Key: []string{"name"},
		},
		{
			Name: "device_bindings",
			Columns: []Column{
				{Name: "name", Type: TypeKeyText},
				{Name: "address", Type: TypeText},
				{Name: "version", Type: TypeInt},
				{Name: "resource_version", Type: TypeInt},
				{Name: "data", Type: TypeBytes},
			},
			Key:     []string{"name"},
			Indexes: []TableIndex{{Name: "device_bindings_by_address", Columns: []string{"address"}}},
		},
		{
			Name: "ip_pools",
			Columns: []Column{
				{Name: "pool", Type: TypeKeyText},
				{Name: "version", Type: TypeInt},
				{Name: "resource_version", Type: TypeInt},
				{Name: "in_use", Type: TypeInt},
				{Name: "free", Type: TypeText, Null: true},
			},
			Key: []string{"pool"},
		},
		{
			Name: "ip_allocations",
			Columns: []Column{
				{Name: "pool", Type: TypeKeyText},
				{Name: "address", Type: TypeKeyText},
				{Name: "pod_uid", Type: TypeText},
				{Name: "namespace", Type: TypeKeyText},
				{Name: "name", Type: TypeKeyText},
				{Name: "allocated_at", Type: TypeText},
				{Name: "position", Type: TypeInt},
			},
			Key: []string{"pool", "address"},
			Indexes: []TableIndex{
				{Name: "ip_allocations_by_pod", Columns: []string{"pod_uid"}},
				{Name: "ip_allocations_by_name", Columns: []string{"namespace", "name"}},
			},
		},
		singles("fleet_health"),
		singles("kubelet_targets"),
		leasesTable(),
		{
			Name: "projection_checkpoints",
			Columns: []Column{
				{Name: "projection", Type: TypeText, Null: true},
				{Name: "position", Type: TypeInt},
				{Name: "rebuilt_at", Type: TypeText},
			},
			Key:   []string{"projection"},
			RowID: true,
		},
		{
			Name: "nodes",
			Columns: []Column{
				{Name: "name", Type: TypeKeyText},
				{Name: "kind", Type: TypeText},
				{Name: "deleted", Type: TypeFlag, Default: "0"},
				{Name: "agent_state", Type: TypeText},
				{Name: "ready", Type: TypeText},
				{Name: "registered_at", Type: TypeInt},
				{Name: "data", Type: TypeBytes},
			},
			Key: []string{"name"},
			// Substrings of the cold row's JSON as encoding/json writes it,
			// without spaces; a match is checked again on the decoded
			// node, so a false one costs a read, never an action. The
			// node view's reads repeat these conditions (nodes.go).
			Indexes: []TableIndex{
				{Name: "nodes_needing_taint_check", Columns: []string{"name"},
					Where: "deleted = 0 AND (ready <> 'True' OR {0} OR {1})",
					Holds: []Holds{{"data", nodeTaintKeyText}, {"data", nodePressureText}}},
				{Name: "nodes_with_drain", Columns: []string{"name"}, Where: "{0}", Holds: []Holds{{"data", nodeDrainText}}},
				{Name: "nodes_with_no_execute", Columns: []string{"name"}, Where: "{0}", Holds: []Holds{{"data", nodeNoExecuteText}}},
			},
		},
		{
			Name: "node_heartbeats",
			Columns: []Column{
				{Name: "name", Type: TypeKeyText},
				{Name: "last_heartbeat", Type: TypeInt},
				{Name: "data", Type: TypeBytes},
			},
			Key: []string{"name"},
		},
		timelineTable(),
	}
}

// leasesTable is the lease view's: an object table with each lease's
// last renewal beside its row, filled from the log at start where an
// older herd renewed leases before the column was there (projections'
// leasesRenewedAt).
func leasesTable() Table {
	t := ObjectTable("leases", false)
	t.Columns = append(t.Columns, Column{Name: "renewed_at", Type: TypeInt, Default: "0"})
	return t
}

// Views describes the views over the described tables: node_rows, what
// readers of the node view read (Nodes' Get, List, After).
func Views() []View {
	return []View{nodeRowsView}
}

// nodeRowsView is a node's two rows as one: the cold row's columns, the
// last heartbeat, and the two parts' JSON joined by a NUL byte (which
// JSON never holds), decoded as one node by projections' unmarshalNode.
// A node written before the split has no hot row until the upgrade at
// start (projections' splitNodeRows) gives it one, and reads whole
// meanwhile. The byte strings' literals are each engine's; on SQLite the
// query is word for word the one of the file that made the view before
// it was described (0012), so that a database made then keeps its view
// as it is.
var nodeRowsView = View{
	Name: "node_rows",
	Select: func(d events.Dialect) string {
		return `SELECT n.name, n.kind, n.deleted, n.agent_state, n.ready, n.registered_at,
       COALESCE(h.last_heartbeat, 0) AS last_heartbeat,
       n.data || ` + d.Bytes([]byte{0}) + ` || COALESCE(h.data, ` + d.Bytes(nil) + `) AS data
FROM nodes n LEFT JOIN node_heartbeats h ON h.name = n.name`
	},
}
