package viewstore

// Tables describes the views' tables that viewstore's own stores keep,
// other than the kinds' (ObjectTable): the pods', the namespaces', the
// device bindings', the IP addresses', the two single-row aggregates'
// and the nodes' hot rows. On a new database DB.Ensure makes them from
// here, except those that the engine's first migration files still
// make together with tables that stay in them (fleet_health and
// node_heartbeats on SQLite, every one on PostgreSQL, whose 0002 makes
// them all): Ensure finds those as described. What they gain after — a
// column, an index — is added to the description, not written in a file.
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
		{
			Name: "node_heartbeats",
			Columns: []Column{
				{Name: "name", Type: TypeKeyText},
				{Name: "last_heartbeat", Type: TypeInt},
				{Name: "data", Type: TypeBytes},
			},
			Key: []string{"name"},
		},
	}
}
