package conversions

import (
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

// defaultReplicas is how many pods a ReplicaSet that names no number
// keeps: apps/v1's default.
const defaultReplicas int32 = 1

// ReplicaSetToAPI renders a domain ReplicaSet as an apps/v1 ReplicaSet.
func ReplicaSetToAPI(rs domain.ReplicaSet) appsv1.ReplicaSet {
	replicas := rs.Spec.Replicas
	out := appsv1.ReplicaSet{
		TypeMeta:   metav1.TypeMeta{Kind: "ReplicaSet", APIVersion: appsv1.SchemeGroupVersion.String()},
		ObjectMeta: objectMetaToAPI(rs.ObjectMeta, rs.ResourceVersion),
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        &replicas,
			MinReadySeconds: rs.Spec.MinReadySeconds,
			Selector:        SelectorToAPI(rs.Spec.Selector),
			Template:        podTemplateToAPI(rs.Spec.Template),
		},
		Status: appsv1.ReplicaSetStatus{
			Replicas:             rs.Status.Replicas,
			FullyLabeledReplicas: rs.Status.FullyLabeledReplicas,
			ReadyReplicas:        rs.Status.ReadyReplicas,
			AvailableReplicas:    rs.Status.AvailableReplicas,
			ObservedGeneration:   rs.Status.ObservedGeneration,
		},
	}
	return out
}

// foregroundDeletion shows an owner being deleted in the foreground as
// kube-apiserver does: its deletionTimestamp, and the foregroundDeletion
// finalizer that holds it until its dependents are gone.
func foregroundDeletion(m *metav1.ObjectMeta, at *time.Time) {
	if at == nil {
		return
	}
	ts := metav1.NewTime(*at)
	m.DeletionTimestamp = &ts
	m.Finalizers = []string{domain.ForegroundFinalizer}
}

// podTemplateToAPI renders a workload's pod template; its zone travels
// in its annotations, as a pod's does.
func podTemplateToAPI(t domain.PodTemplate) corev1.PodTemplateSpec {
	spec := PodSpecToAPI(t.Spec)
	if t.TerminationGracePeriodSeconds != nil {
		g := *t.TerminationGracePeriodSeconds
		spec.TerminationGracePeriodSeconds = &g
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: t.Labels, Annotations: zoneAnnotations(t.Annotations, t.Spec.Zone)},
		Spec:       spec,
	}
}

// ReplicaSetFromAPI reads what a client sets on a ReplicaSet — its
// labels, annotations, owners and spec — with apps/v1's defaults: one
// replica when it names none, and the pod defaults of its template (a
// grace period of 30 s). A body kube-apiserver would refuse is refused
// here too, with its field paths. Everything else in its metadata is
// herd's to decide and ignored; the status is the reconciler's
// (ReplicaSetStatusFromAPI).
func ReplicaSetFromAPI(in appsv1.ReplicaSet) (domain.CreateReplicaSet, error) {
	if err := ValidateReplicaSet(&in); err != nil {
		return domain.CreateReplicaSet{}, err
	}
	tmpl, err := podTemplateFromAPI("ReplicaSet", in.Name, in.Spec.Template)
	if err != nil {
		return domain.CreateReplicaSet{}, err
	}
	replicas := defaultReplicas
	if in.Spec.Replicas != nil {
		replicas = *in.Spec.Replicas
	}
	return domain.CreateReplicaSet{
		Meta: objectMetaFromAPI(in.ObjectMeta),
		Spec: domain.ReplicaSetSpec{
			Replicas: replicas, MinReadySeconds: in.Spec.MinReadySeconds, Selector: SelectorFromAPI(in.Spec.Selector),
			Template: tmpl,
		},
	}, nil
}

// ReplicaSetStatusFromAPI reads the status a controller writes through
// replicasets/NAME/status.
func ReplicaSetStatusFromAPI(in appsv1.ReplicaSetStatus) domain.ReplicaSetStatus {
	return domain.ReplicaSetStatus{
		Replicas: in.Replicas, FullyLabeledReplicas: in.FullyLabeledReplicas, ReadyReplicas: in.ReadyReplicas,
		AvailableReplicas: in.AvailableReplicas, ObservedGeneration: in.ObservedGeneration,
	}
}

// ReplicaSetScaleToAPI is the ReplicaSet's scale subresource
// (autoscaling/v1 Scale): the replicas it asks for and has, and its
// selector as a string, as kubectl scale and autoscalers read them.
func ReplicaSetScaleToAPI(rs domain.ReplicaSet) autoscalingv1.Scale {
	return scaleToAPI(rs.ObjectMeta, rs.ResourceVersion, rs.Spec.Replicas, rs.Status.Replicas, rs.Spec.Selector)
}
