package statefulset

import (
	"strconv"

	"herd/domain"
)

// What a StatefulSet's pods and revisions are named and made of: the
// controller's own reading of the spec, as Kubernetes keeps it in the
// controller's stateful_set_utils.go, not in the API's types.

// Revision names the StatefulSet's current template, as its pods'
// controller-revision-hash label and its status's updateRevision name
// it: the StatefulSet's name and the template's hash, as Kubernetes
// names a ControllerRevision.
func Revision(s domain.StatefulSet) string {
	return s.Name + "-" + domain.PodTemplateHash(s.Spec.Template)
}

// Ordinal is the ordinal of pod name of StatefulSet set, and false for
// a name that is not one of its.
func Ordinal(set, name string) (int, bool) {
	if len(name) <= len(set)+1 || name[:len(set)+1] != set+"-" {
		return 0, false
	}
	digits := name[len(set)+1:]
	i, err := strconv.Atoi(digits)
	if err != nil || i < 0 || strconv.Itoa(i) != digits {
		return 0, false
	}
	return i, true
}

// partition is the lowest ordinal a rolling update replaces: 0 unless
// the strategy sets one; for OnDelete, every pod keeps its template
// until it is deleted, which it says as the replicas.
func partition(s domain.StatefulSet) int32 {
	if s.Spec.UpdateStrategy.Type == domain.StatefulSetOnDelete {
		return s.Spec.Replicas
	}
	if p := s.Spec.UpdateStrategy.Partition; p != nil {
		return *p
	}
	return 0
}

// maxUnavailable is how many of the StatefulSet's replicas a rolling
// update may have unavailable at a time: its maxUnavailable, a
// percentage of the replicas rounded up, and at least 1 (Kubernetes'
// getStatefulSetMaxUnavailable); 1 when it says none.
func maxUnavailable(s domain.StatefulSet) int {
	return max(1, int(s.Spec.UpdateStrategy.MaxUnavailable.Count(s.Spec.Replicas, true)))
}

// newPod is the command that creates the StatefulSet's pod of ordinal i
// with uid from template t, the template of revision rev: named NAME-i,
// labelled with its name and the revision, owned by the StatefulSet. A
// pod below the partition is made again from the revision it belongs
// to, not the new template (Kubernetes' newVersionedStatefulSetPod).
func newPod(s domain.StatefulSet, t domain.PodTemplate, rev string, i int, uid string) domain.CreatePod {
	name := s.Name + "-" + strconv.Itoa(i)
	c := domain.PodFromTemplate(s.Namespace, name, uid, t, s.OwnerReference())
	c.Labels = domain.WithLabels(c.Labels, domain.LabelStatefulSetPodName, name, domain.LabelControllerRevisionHash, rev)
	return c
}

// newRevision is the command that creates the ControllerRevision of the
// StatefulSet's current template, as Kubernetes' newRevision does:
// named Revision(s), labelled with the template's labels and its hash,
// annotated as the StatefulSet is, owned by it; data is the template as
// the patch that restores it, number the revision's.
func newRevision(s domain.StatefulSet, data []byte, number int64, uid string) domain.CreateControllerRevision {
	return domain.NewTemplateRevision(s.ObjectMeta, s.OwnerReference(), s.Spec.Template, domain.LabelControllerRevisionHashKey, data, number, uid)
}
