package conversions

import (
	"strconv"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"herd/domain"
)

// The conversions every kind on herd's object model shares: its
// metadata each way, the scale subresource of one that scales, and the
// pod template of a workload.

// defaultRevisionHistoryLimit is how many old revisions apps/v1 keeps
// of a Deployment or a DaemonSet that does not say.
const defaultRevisionHistoryLimit int32 = 10

// podTemplateFromAPI reads a workload's pod template with the pod
// defaults (a grace period of 30 s); its zone travels in its
// annotations, as a pod's does.
func podTemplateFromAPI(kind, name string, tmpl corev1.PodTemplateSpec) (domain.PodTemplate, error) {
	zone, err := zoneFromAnnotations(tmpl.Annotations)
	if err != nil {
		return domain.PodTemplate{}, &domain.InvalidError{Kind: kind, Name: name,
			Fields: []domain.FieldError{{Field: "spec.template.metadata.annotations", Reason: err.Error()}}}
	}
	grace := domain.DefaultTerminationGracePeriodSeconds
	if g := tmpl.Spec.TerminationGracePeriodSeconds; g != nil {
		grace = *g
	}
	podSpec := PodSpecFromAPI(tmpl.Spec)
	podSpec.TerminationGracePeriodSeconds, podSpec.Zone = grace, zone
	return domain.PodTemplate{
		Labels: tmpl.Labels, Annotations: WithoutHerdKeys(tmpl.Annotations),
		Spec: podSpec, TerminationGracePeriodSeconds: &grace,
	}, nil
}

// objectMetaToAPI renders an object's metadata, at resourceVersion, as
// kube-apiserver shows it: an object being deleted in the foreground
// with its deletionTimestamp and the finalizer that holds it.
func objectMetaToAPI(m domain.ObjectMeta, resourceVersion int64) metav1.ObjectMeta {
	out := metav1.ObjectMeta{
		Name: m.Name, Namespace: m.Namespace, UID: types.UID(m.UID),
		ResourceVersion: strconv.FormatInt(resourceVersion, 10), Generation: m.Generation,
		CreationTimestamp: metav1.NewTime(m.CreatedAt),
		Labels:            m.Labels, Annotations: m.Annotations, OwnerReferences: ownersToAPI(m.Owners),
	}
	foregroundDeletion(&out, m.DeletionRequestedAt)
	return out
}

// objectMetaFromAPI reads what a client sets of an object's metadata:
// its namespace, name, labels, annotations and owners. The rest (uid,
// resourceVersion, creationTimestamp, finalizers, managedFields...) is
// herd's to decide and ignored.
func objectMetaFromAPI(in metav1.ObjectMeta) domain.ObjectMeta {
	return domain.ObjectMeta{Namespace: in.Namespace, Name: in.Name,
		Labels: in.Labels, Annotations: in.Annotations, Owners: OwnersFromAPI(in.OwnerReferences)}
}

// scaleToAPI is the scale subresource (autoscaling/v1 Scale) of the
// object of metadata m at resourceVersion: the replicas it asks for and
// has, and its selector as a string, as kubectl scale and autoscalers
// read them.
func scaleToAPI(m domain.ObjectMeta, resourceVersion int64, replicas, current int32, sel domain.LabelSelector) autoscalingv1.Scale {
	return autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{Kind: "Scale", APIVersion: autoscalingv1.SchemeGroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{
			Name: m.Name, Namespace: m.Namespace, UID: types.UID(m.UID),
			ResourceVersion: strconv.FormatInt(resourceVersion, 10), CreationTimestamp: metav1.NewTime(m.CreatedAt),
		},
		Spec:   autoscalingv1.ScaleSpec{Replicas: replicas},
		Status: autoscalingv1.ScaleStatus{Replicas: current, Selector: SelectorString(sel)},
	}
}

// ptrCopy is a copy of what p points to, or nil: so that nothing the
// domain keeps points into a client's body.
func ptrCopy[T any](p *T) *T {
	if p == nil {
		return nil
	}
	return ptrTo(*p)
}

// optionalTimeToAPI is an optional time of herd's as the API's: nil
// stays nil.
func optionalTimeToAPI(t *time.Time) *metav1.Time {
	if t == nil {
		return nil
	}
	return ptrTo(metav1.NewTime(*t))
}

// optionalTimeFromAPI is an optional time of the API's as herd keeps
// it, in UTC: nil stays nil.
func optionalTimeFromAPI(t *metav1.Time) *time.Time {
	if t == nil {
		return nil
	}
	return ptrTo(t.UTC())
}
