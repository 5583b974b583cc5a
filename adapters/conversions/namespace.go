package conversions

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"herd/domain"
)

// NamespaceToAPI renders a domain namespace as a Kubernetes Namespace. As
// in Kubernetes, every namespace carries the kubernetes.io/metadata.name
// label and the kubernetes finalizer, and a terminating one its deletion
// timestamp.
func NamespaceToAPI(ns domain.Namespace) corev1.Namespace {
	labels := map[string]string{corev1.LabelMetadataName: ns.Name}
	for k, v := range ns.Labels {
		labels[k] = v
	}
	out := corev1.Namespace{
		TypeMeta: metav1.TypeMeta{Kind: "Namespace", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              ns.Name,
			UID:               types.UID(ns.UID),
			ResourceVersion:   strconv.FormatInt(ns.ResourceVersion, 10),
			CreationTimestamp: metav1.NewTime(ns.CreatedAt),
			Labels:            labels,
			Annotations:       ns.Annotations,
		},
		Spec:   corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status: corev1.NamespaceStatus{Phase: corev1.NamespacePhase(domain.NamespacePhase(ns))},
	}
	if ns.DeletionRequestedAt != nil {
		t := metav1.NewTime(*ns.DeletionRequestedAt)
		out.DeletionTimestamp = &t
	}
	return out
}

// CreateNamespaceFromAPI reads a Namespace a client posted. The
// kubernetes.io/metadata.name label is herd's to set and is not kept.
func CreateNamespaceFromAPI(in corev1.Namespace, uid string) domain.CreateNamespace {
	return domain.CreateNamespace{Meta: domain.ObjectMeta{Name: in.Name, UID: uid, Labels: namespaceLabelsFromAPI(in.Labels),
		Annotations: in.Annotations}}
}

// UpdateNamespaceFromAPI reads a Namespace a client put (or a patch
// made); the resourceVersion it was based on is the caller's
// Precondition. As on create, the kubernetes.io/metadata.name label is
// herd's and whatever the client says of it is ignored, as kube-apiserver
// sets it to the name again; spec and status are not the client's to
// change either.
func UpdateNamespaceFromAPI(in corev1.Namespace) domain.UpdateNamespace {
	return domain.UpdateNamespace{Meta: domain.ObjectMeta{Name: in.Name, UID: string(in.UID), Labels: namespaceLabelsFromAPI(in.Labels),
		Annotations: in.Annotations}}
}

// namespaceLabelsFromAPI is a client's labels of a namespace without the
// kubernetes.io/metadata.name label, which NamespaceToAPI adds.
func namespaceLabelsFromAPI(in map[string]string) map[string]string {
	var labels map[string]string
	for k, v := range in {
		if k == corev1.LabelMetadataName {
			continue
		}
		if labels == nil {
			labels = map[string]string{}
		}
		labels[k] = v
	}
	return labels
}
