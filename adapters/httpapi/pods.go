package httpapi

import (
	"context"
	"errors"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

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
// termination under herd.dev.
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
		toAPI: conversions.PodToAPI,
		rows:  podRows,
	}
	k := o.describe(s)
	k.verbs.create, k.verbs.update, k.verbs.patch, k.verbs.delete = s.createPod, s.updatePod, s.patchPod, s.deletePod
	policy := policyv1.SchemeGroupVersion
	k.subresources = []subresource{
		{name: "status", verbs: verbs{get: k.verbs.get, update: s.updatePodStatus, patch: s.patchPodStatus}, table: true},
		// kubectl drain evicts through this subresource when discovery
		// offers it, with the group and version named here.
		{name: "eviction", object: "Eviction", objectGV: &policy, verbs: verbs{create: s.evictPod}},
		{name: "binding", object: "Binding", verbs: verbs{create: s.bindPod}},
		{name: "termination", gv: herdGV, verbs: verbs{create: s.recordTermination}},
	}
	return k
}

// createPod creates a pod in the namespace of the path. A name may be
// generated from metadata.generateName, as Kubernetes does.
func (s *Server) createPod(w http.ResponseWriter, r *http.Request) {
	ns := r.PathValue("namespace")
	var in corev1.Pod
	if err := decodeObject(r, &in); err != nil {
		s.writeError(w, err, "Pod", "")
		return
	}
	if err := pathIdentity(&in.ObjectMeta, ns, ""); err != nil {
		s.writeError(w, err, "Pod", in.Name)
		return
	}
	if in.Name == "" && in.GenerateName != "" {
		in.Name = in.GenerateName + utilrand.String(5)
	}
	if err := conversions.ValidatePod(&in); err != nil {
		s.writeError(w, err, "Pod", in.Name)
		return
	}
	cmd, err := conversions.CreatePodFromAPI(in, uuid.NewString())
	if err != nil {
		s.writeError(w, badRequest("%s", err), "Pod", in.Name)
		return
	}
	if err := s.acceptsObjects(r.Context(), corev1.Resource("pods"), ns, cmd.Name); err != nil {
		s.writeError(w, err, "Pod", cmd.Name)
		return
	}
	p, err := s.Pods.Execute(r.Context(), domain.Key{Namespace: ns, Name: cmd.Name}, cmd)
	if err != nil {
		s.writeError(w, err, "Pod", cmd.Name)
		return
	}
	s.writePod(w, http.StatusCreated, p)
}

// deletePod asks for a pod's deletion, with the grace period from
// ?gracePeriodSeconds= or the DeleteOptions body. The answer is the pod as
// it now stands (with its deletion timestamp), or a Status when it is
// already gone, as kube-apiserver answers.
func (s *Server) deletePod(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	grace, err := gracePeriod(r)
	if err != nil {
		s.writeError(w, err, "Pod", name)
		return
	}
	s.deletePodWith(w, r, ns, name, grace, nil)
}

// deletePodWith runs DeletePod, preceded by disruption when it is set.
func (s *Server) deletePodWith(w http.ResponseWriter, r *http.Request, ns, name string, grace *int64, disruption *domain.TargetPodDisruption) {
	var cmds []domain.PodCommand
	if disruption != nil {
		cmds = append(cmds, *disruption)
	}
	cmds = append(cmds, domain.DeletePod{GracePeriodSeconds: grace})
	p, err := s.Pods.Execute(r.Context(), domain.Key{Namespace: ns, Name: name}, domain.PodSequence(cmds))
	if err != nil {
		s.writeError(w, err, "Pod", name)
		return
	}
	if disruption != nil {
		st := successStatus("pods", name)
		s.writeObject(w, http.StatusCreated, &st)
		return
	}
	if p.Finalized {
		st := successStatus("pods", name)
		st.Details.UID = conversions.PodToAPI(p).UID
		s.writeStatus(w, st)
		return
	}
	s.writePod(w, http.StatusOK, p)
}

// gracePeriod reads the grace period of a delete: the query parameter
// wins over the body's DeleteOptions; nil when neither gives one.
func gracePeriod(r *http.Request) (*int64, error) {
	if raw := r.URL.Query().Get("gracePeriodSeconds"); raw != "" {
		v, err := strconv.ParseInt(raw, 10, 64)
		if err != nil {
			return nil, badRequest("gracePeriodSeconds %q is not an integer", raw)
		}
		return &v, nil
	}
	if r.ContentLength == 0 {
		return nil, nil
	}
	var opts metav1.DeleteOptions
	if err := decodeObject(r, &opts); err != nil {
		if errors.Is(err, errEmptyBody) {
			return nil, nil
		}
		return nil, err
	}
	return opts.GracePeriodSeconds, nil
}

// writePod answers with p in the negotiated media type.
func (s *Server) writePod(w http.ResponseWriter, code int, p domain.Pod) {
	kp := conversions.PodToAPI(p)
	s.writeObject(w, code, &kp)
}
