package domain

// object is what the commands that wrap another (Precondition, IfExists)
// need of an aggregate's state: whether it exists, and how a refusal names
// it and its resourceVersion.
type object interface {
	Exists() bool
	// ref is the object's resource in Kubernetes' words ("nodes"), its
	// name, and its resourceVersion.
	ref() (resource, name string, resourceVersion int64)
}

func (n Node) ref() (string, string, int64) { return "nodes", n.Name, n.ResourceVersion }
func (p Pod) ref() (string, string, int64)  { return "pods", p.Name, p.ResourceVersion }
func (l Lease) ref() (string, string, int64) {
	return "leases.coordination.k8s.io", l.Name, l.ResourceVersion
}

func (j Job) ref() (string, string, int64) { return "jobs.batch", j.Name, j.ResourceVersion }
func (ds DaemonSet) ref() (string, string, int64) {
	return "daemonsets.apps", ds.Name, ds.ResourceVersion
}
