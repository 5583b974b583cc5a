package domain

// Key names one aggregate: a namespaced object by namespace and name, a
// cluster-scoped one (a node, a namespace, a device binding) by name with
// Namespace empty, an IP pool by its CIDR as Name, and the aggregates of
// which there is only one (the fleet's health, the kubelet targets) by
// the zero Key.
type Key struct {
	// Namespace is the object's namespace; empty for cluster-scoped
	// aggregates.
	Namespace string
	// Name is the object's name, or an IP pool's CIDR.
	Name string
}

// String is the key as the aggregate's stream names it: "namespace/name",
// or the name alone for a cluster-scoped aggregate.
func (k Key) String() string {
	if k.Namespace == "" {
		return k.Name
	}
	return k.Namespace + "/" + k.Name
}
