package domain

// Key names one object of an aggregate: its name, and its namespace when
// the aggregate's objects live in namespaces. A singleton aggregate (the
// fleet's health, the kubelet targets) is the zero Key; an IP pool's name
// is its CIDR.
type Key struct {
	Namespace string
	Name      string
}

// String is "namespace/name", or the name alone for an object without a
// namespace, as logs and errors name it.
func (k Key) String() string {
	if k.Namespace == "" {
		return k.Name
	}
	return k.Namespace + "/" + k.Name
}
