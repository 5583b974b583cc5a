package httpapi

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	utilrand "k8s.io/apimachinery/pkg/util/rand"

	"herd/adapters/conversions"
	"herd/domain"
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

// listPods lists or, with ?watch=true, watches pods, across namespaces
// (/api/v1/pods) or in one, through the shared list and watch helpers
// (list.go, watch.go).
func (s *Server) listPods(w http.ResponseWriter, r *http.Request) {
	s.serveCollection(w, r, s.resource("pods"))
}

func (s *Server) getPod(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	p, err := s.PodView.Get(r.Context(), ns, name)
	if err != nil {
		s.writeError(w, err, "Pod", name)
		return
	}
	kp := conversions.PodToAPI(p)
	if wantsTable(w) {
		t := s.podTable([]corev1.Pod{kp}, kp.ResourceVersion, r)
		s.writeObject(w, http.StatusOK, &t)
		return
	}
	s.writeObject(w, http.StatusOK, &kp)
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
