package conversions

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

// ConfigMapToAPI renders a domain ConfigMap as a Kubernetes ConfigMap.
func ConfigMapToAPI(c domain.ConfigMap) corev1.ConfigMap {
	out := corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{Kind: "ConfigMap", APIVersion: "v1"},
		ObjectMeta: objectMetaToAPI(c.ObjectMeta, c.ResourceVersion),
		Data:       c.Spec.Data,
		BinaryData: c.Spec.BinaryData,
	}
	if c.Spec.Immutable {
		t := true
		out.Immutable = &t
	}
	return out
}

// ConfigMapFromAPI reads what a client may set on a ConfigMap, as the
// create it asks for (an update is the same): its labels, annotations,
// owners and data. Everything else in its metadata (uid,
// creationTimestamp, finalizers, managedFields...) is herd's to decide
// and ignored; it refuses nothing, the domain's validation does.
func ConfigMapFromAPI(in corev1.ConfigMap) domain.CreateConfigMap {
	return domain.CreateConfigMap{
		Meta: objectMetaFromAPI(in.ObjectMeta),
		Spec: domain.ConfigMapSpec{Data: in.Data, BinaryData: in.BinaryData, Immutable: in.Immutable != nil && *in.Immutable},
	}
}
