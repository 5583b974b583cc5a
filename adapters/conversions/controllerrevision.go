package conversions

import (
	"bytes"
	"encoding/json"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"herd/domain"
)

// ControllerRevisionToAPI renders a domain ControllerRevision as an
// apps/v1 ControllerRevision: its data as written, its revision number.
func ControllerRevisionToAPI(r domain.ControllerRevision) appsv1.ControllerRevision {
	return appsv1.ControllerRevision{
		TypeMeta:   metav1.TypeMeta{Kind: "ControllerRevision", APIVersion: appsv1.SchemeGroupVersion.String()},
		ObjectMeta: objectMetaToAPI(r.ObjectMeta, r.ResourceVersion),
		Data:       runtime.RawExtension{Raw: bytes.Clone(r.Spec.Data)},
		Revision:   r.Spec.Revision,
	}
}

// ControllerRevisionFromAPI reads what a client sets on a
// ControllerRevision — its labels, annotations, owners, data and
// revision — on a create as on an update. The data is kept as compact
// JSON (what a JSON body carries, or the bytes of a protobuf one, which
// must be JSON too: herd's views are); data that is not JSON is refused
// naming the field, and the domain refuses the rest, as kube-apiserver's
// ValidateControllerRevision does.
func ControllerRevisionFromAPI(in appsv1.ControllerRevision) (domain.CreateControllerRevision, error) {
	errs := validateTypeMeta(in.TypeMeta, "ControllerRevision", appsv1.SchemeGroupVersion.String())
	errs = append(errs, validateMeta(&in.ObjectMeta)...)
	var data bytes.Buffer
	if raw := in.Data.Raw; len(raw) > 0 {
		if err := json.Compact(&data, raw); err != nil {
			errs = append(errs, field.Invalid(field.NewPath("data"), string(raw), "must be JSON"))
		}
	} else if in.Data.Object != nil {
		raw, err := json.Marshal(in.Data.Object)
		if err != nil {
			errs = append(errs, field.Invalid(field.NewPath("data"), "", err.Error()))
		}
		data.Write(raw)
	}
	if err := invalidFrom("ControllerRevision", in.Name, errs); err != nil {
		return domain.CreateControllerRevision{}, err
	}
	out := domain.CreateControllerRevision{
		Meta: objectMetaFromAPI(in.ObjectMeta),
		Spec: domain.ControllerRevisionSpec{Revision: in.Revision},
	}
	if data.Len() > 0 {
		out.Spec.Data = data.Bytes()
	}
	return out, nil
}

// StatefulSetRevisionData is the data of the ControllerRevision of the
// StatefulSet's template, as Kubernetes' StatefulSet controller writes it
// (its getPatch) and kubectl rollout undo sends it back: the template
// under spec, with the strategic merge directive that replaces it whole,
// `{"spec":{"template":{"$patch":"replace",...}}}`, its keys sorted. It is
// byte for byte what a kubectl of herd's Kubernetes version computes of a
// StatefulSet with this template (its statefulsetMatch), so its undo to
// the template already there is skipped.
func StatefulSetRevisionData(s domain.StatefulSet) ([]byte, error) {
	return templatePatch(StatefulSetToAPI(s))
}

// DaemonSetRevisionData is the data of the ControllerRevision of the
// DaemonSet's template, as Kubernetes' DaemonSet controller writes it
// (its getPatch) and kubectl rollout undo daemonset sends it back: the
// same replacing patch of spec.template as a StatefulSet's.
func DaemonSetRevisionData(ds domain.DaemonSet) ([]byte, error) {
	return templatePatch(DaemonSetToAPI(ds))
}

// templatePatch is the strategic merge patch that replaces a workload's
// spec.template with its own, its keys sorted:
// `{"spec":{"template":{"$patch":"replace",...}}}`.
func templatePatch(workload any) ([]byte, error) {
	full, err := json.Marshal(workload)
	if err != nil {
		return nil, err
	}
	var raw map[string]any
	if err := json.Unmarshal(full, &raw); err != nil {
		return nil, err
	}
	spec, _ := raw["spec"].(map[string]any)
	template, _ := spec["template"].(map[string]any)
	if template == nil {
		return nil, fmt.Errorf("%T has no template", workload)
	}
	template["$patch"] = "replace"
	return json.Marshal(map[string]any{"spec": map[string]any{"template": template}})
}

// StatefulSetRevisionTemplate is the pod template a ControllerRevision's
// data restores on the StatefulSet, as Kubernetes' ApplyRevision does:
// the data applied to the StatefulSet as a strategic merge patch, read
// back with apps/v1's defaults. Data that does not apply, or gives a
// template herd refuses, is an error.
func StatefulSetRevisionTemplate(s domain.StatefulSet, data []byte) (domain.PodTemplate, error) {
	original, err := json.Marshal(StatefulSetToAPI(s))
	if err != nil {
		return domain.PodTemplate{}, err
	}
	patched, err := strategicpatch.StrategicMergePatch(original, data, appsv1.StatefulSet{})
	if err != nil {
		return domain.PodTemplate{}, fmt.Errorf("apply revision to statefulset %s: %w", s, err)
	}
	var restored appsv1.StatefulSet
	if err := json.Unmarshal(patched, &restored); err != nil {
		return domain.PodTemplate{}, fmt.Errorf("apply revision to statefulset %s: %w", s, err)
	}
	c, err := StatefulSetFromAPI(restored)
	if err != nil {
		return domain.PodTemplate{}, err
	}
	return c.Spec.Template, nil
}
