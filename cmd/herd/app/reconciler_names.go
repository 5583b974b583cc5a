package app

// ServeReconcilers are the names of the reconcilers herd serve runs, as
// --reconcilers takes them. The names are the reconcilers' own (their
// Name method); they are listed here too so that the configuration can be
// checked before anything is built, and TestServeReconcilersListed keeps
// the list equal to what Options builds.
var ServeReconcilers = []string{"cronjob", "daemonset", "deployment", "disruption", "drain", "garbagecollector", "health", "ipam", "job", "kubelet", "kubeletprobe", "namespace", "noexecute", "podready", "replicaset", "scheduler", "statefulset", "termination", "zones"}
