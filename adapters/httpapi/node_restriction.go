package httpapi

import (
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	kubeletapis "k8s.io/kubelet/pkg/apis"
)

// restrictNodeLabels is NodeRestriction's label rule for a node's own
// registration, as kube-apiserver's admission plugin applies it
// (plugin/pkg/admission/noderestriction): a node, or a device speaking
// for one, may not set labels under node-restriction.kubernetes.io, nor
// labels under kubernetes.io or k8s.io that are not the kubelet's own
// (kubernetes.io/hostname, topology.kubernetes.io/zone, the
// [*.]node.kubernetes.io and [*.]kubelet.kubernetes.io namespaces, …) —
// node-role.kubernetes.io among them: roles are given by an
// administrator. old is the node's labels as they stand (nil when it
// registers for the first time); only labels the request sets to a new
// value are judged, so a restart that repeats its labels passes and an
// administrator's labels survive it. The gates apply it to what a node
// or a device creates, before anything is written; administrators are not
// restricted.
func restrictNodeLabels(name string, old, labels map[string]string) error {
	var bad []string
	for k, v := range labels {
		if was, ok := old[k]; ok && was == v {
			continue
		}
		if nodeMayNotSet(k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	verb := "set the following labels"
	if old != nil {
		verb = "modify labels"
	}
	return forbidden("nodes %q is forbidden: node %q is not allowed to %s: %s", name, name, verb, strings.Join(bad, ", "))
}

// nodeMayNotSet is NodeRestriction's forbidden-label test.
func nodeMayNotSet(key string) bool {
	ns, _, ok := strings.Cut(key, "/")
	if !ok {
		return false
	}
	if inNamespace(ns, corev1.LabelNamespaceNodeRestriction) {
		return true
	}
	return (inNamespace(ns, "kubernetes.io") || inNamespace(ns, "k8s.io")) && !kubeletapis.IsKubeletLabel(key)
}

// inNamespace says whether the label namespace ns is domain or one of its
// subdomains.
func inNamespace(ns, domain string) bool {
	return ns == domain || strings.HasSuffix(ns, "."+domain)
}
