package httpapi

import (
	"context"
	"maps"
	"slices"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/fields"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
)

// podFieldLabels are the fields a pod list may be selected by, as
// kube-apiserver supports them for pods (a subset).
var podFieldLabels = map[string]bool{
	"metadata.name": true, "metadata.namespace": true, "spec.nodeName": true, "status.phase": true,
}

// podFields is a pod's selectable fields.
func podFields(p domain.Pod) fields.Set {
	return fields.Set{
		"metadata.name": p.Name, "metadata.namespace": p.Namespace,
		"spec.nodeName": p.Spec.NodeName, "status.phase": string(p.Status.Phase),
	}
}

// podKind serves pods (core/v1): created by users, scheduled by herd,
// bound and evicted as in Kubernetes; their nodes report through the
// status subresource, and herd's agents record each step of a pod's
// termination under herd.dev. A PUT or PATCH may change a pod's labels,
// annotations and finalizers, not its spec; a delete is graceful, with
// the grace period of the request or the pod's own.
func (s *Server) podKind() *kind {
	o := &object[domain.Pod, domain.PodCommand, corev1.Pod, *corev1.Pod]{
		kind: &kind{
			gv: corev1.SchemeGroupVersion, resource: "pods", singular: "pod", name: "Pod",
			namespaced: true, shortNames: []string{"po"}, categories: []string{"all"},
		},
		listing: &listing[domain.Pod]{
			aggregate: domain.PodAggregate, fold: projections.FoldPod,
			rows: s.PodView.Rows, hasView: s.PodView != nil,
			exists: domain.Pod.Exists,
			meta: func(p domain.Pod) (domain.Key, int64, map[string]string) {
				return domain.Key{Namespace: p.Namespace, Name: p.Name}, p.ResourceVersion, p.Labels
			},
			fields:      func(p domain.Pod) fields.Fields { return podFields(p) },
			fieldLabels: slices.Sorted(maps.Keys(podFieldLabels)),
		},
		read: func(ctx context.Context, key domain.Key) (domain.Pod, error) {
			return s.PodView.Get(ctx, key.Namespace, key.Name)
		},
		exec:  s.Pods,
		toAPI: conversions.PodToAPI,
		create: func(in *corev1.Pod, _ domain.Key) (domain.PodCommand, error) {
			if err := conversions.ValidatePod(in); err != nil {
				return nil, err
			}
			cmd, err := conversions.CreatePodFromAPI(*in, uuid.NewString())
			if err != nil {
				return nil, badRequest("%s", err)
			}
			return cmd, nil
		},
		update: podChange(metadataChange),
		status: podChange(statusChange),
		delete: func(d deletion) domain.PodCommand {
			return ifVersion[domain.PodCommand](d.resourceVersion, domain.DeletePod{GracePeriodSeconds: d.gracePeriod})
		},
		rows: podRows,
	}
	k := o.describe(s)
	k.nodeRule = mainGate.authorizeNodePods
	k.deleteAnswersObject = true
	policy := policyv1.SchemeGroupVersion
	if s.Evictions != nil {
		// kubectl drain evicts through this subresource when discovery
		// offers it, with the group and version named here.
		k.subresources = append(k.subresources,
			subresource{name: "eviction", object: "Eviction", objectGV: &policy, verbs: verbs{create: s.evictionHandler(k), dryRun: true}})
	}
	k.subresources = append(k.subresources,
		subresource{name: "binding", object: "Binding", verbs: verbs{create: o.posted(s, s.bindingCommand), dryRun: true}},
		subresource{name: "termination", gv: herdGV, verbs: verbs{create: o.action(s, terminationCommand), dryRun: true}},
		subresource{name: "explanation", gv: herdGV, object: "PodExplanation", verbs: verbs{get: s.podExplanation}},
	)
	return k
}
