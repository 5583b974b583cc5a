package deployment

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"maps"
	"strconv"
	"strings"

	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/api/equality"

	"herd/domain"
	"herd/reconcilers"
)

// revisionOf is a ReplicaSet's revision, 0 when it carries none.
func revisionOf(rs domain.ReplicaSet) int64 {
	n, _ := strconv.ParseInt(rs.Annotations[domain.RevisionAnnotation], 10, 64)
	return n
}

// maxRevision is the highest revision of rss.
func maxRevision(rss []domain.ReplicaSet) int64 {
	var m int64
	for _, rs := range rss {
		m = max(m, revisionOf(rs))
	}
	return m
}

// templateHash names a revision of template: a hash of it and of the
// Deployment's collision count (raised when the name was taken), written
// in reconcilers.SuffixAlphabet, as the pod-template-hash label and the ReplicaSet's
// name suffix.
func templateHash(t domain.PodTemplate, collisions int32) string {
	t.Labels = withoutHash(t.Labels)
	data, _ := json.Marshal(t) // a PodTemplate always encodes
	h := fnv.New32a()
	_, _ = h.Write(data)
	_, _ = h.Write(binary.BigEndian.AppendUint32(nil, uint32(collisions))) //nolint:gosec // a count, never negative
	n := h.Sum32()
	var b strings.Builder
	for {
		b.WriteByte(reconcilers.SuffixAlphabet[n%uint32(len(reconcilers.SuffixAlphabet))])
		n /= uint32(len(reconcilers.SuffixAlphabet))
		if n == 0 {
			return b.String()
		}
	}
}

// templateEqual reports whether two pod templates say the same, their
// pod-template-hash label left out: Kubernetes' EqualIgnoreHash, by
// which a Deployment finds the ReplicaSet of its template.
func templateEqual(a, b domain.PodTemplate) bool {
	a.Labels, b.Labels = withoutHash(a.Labels), withoutHash(b.Labels)
	return equality.Semantic.DeepEqual(a, b)
}

func withoutHash(labels map[string]string) map[string]string {
	out := maps.Clone(labels)
	delete(out, domain.PodTemplateHashLabel)
	return out
}

// withLabel is labels with k=v, a copy.
func withLabel(labels map[string]string, k, v string) map[string]string {
	out := maps.Clone(labels)
	if out == nil {
		out = map[string]string{}
	}
	out[k] = v
	return out
}

// skippedAnnotations are the Deployment's annotations its ReplicaSets do
// not copy: kubectl's and the controller's own.
var skippedAnnotations = map[string]bool{
	"kubectl.kubernetes.io/last-applied-configuration": true,
	domain.RevisionAnnotation:                          true,
	"deployment.kubernetes.io/revision-history":        true,
	desiredReplicasAnnotation:                          true,
	maxReplicasAnnotation:                              true,
}

// revisionAnnotations are the annotations of the ReplicaSet of revision
// rev: the Deployment's (its change-cause among them) but kubectl's and
// the controller's own, and the revision.
func revisionAnnotations(d domain.Deployment, rev int64) map[string]string {
	out := map[string]string{}
	for k, v := range d.Annotations {
		if !skippedAnnotations[k] {
			out[k] = v
		}
	}
	out[domain.RevisionAnnotation] = strconv.FormatInt(rev, 10)
	return out
}

// create makes the Deployment's new ReplicaSet with replicas pods: named
// after the template's hash, selecting and labelling its pods with it,
// owned by the Deployment, with the next revision. A name taken by
// another ReplicaSet raises the Deployment's collision count, so that the
// next reconcile hashes to another name.
func (ro *rollout) create(ctx context.Context, replicas int32) error {
	d := ro.d
	hash := templateHash(d.Spec.Template, d.Status.CollisionCount)
	tmpl := d.Spec.Template
	tmpl.Labels = withLabel(tmpl.Labels, domain.PodTemplateHashLabel, hash)
	sel := d.Spec.Selector
	sel.MatchLabels = withLabel(sel.MatchLabels, domain.PodTemplateHashLabel, hash)
	name := d.Name + "-" + hash
	cmd := domain.CreateReplicaSet{
		Meta: domain.ObjectMeta{
			Namespace: d.Namespace, Name: name, UID: ro.r.uid(),
			Labels: tmpl.Labels, Annotations: revisionAnnotations(d, maxRevision(ro.old)+1),
			Owners: []domain.OwnerReference{d.OwnerReference()},
		},
		Spec: domain.ReplicaSetSpec{Replicas: replicas, Selector: sel, Template: tmpl, MinReadySeconds: d.Spec.MinReadySeconds},
	}
	cmd.Meta.Annotations, _ = replicasAnnotations(d, domain.ReplicaSet{ObjectMeta: cmd.Meta})
	rs, err := ro.r.rsCommands.Execute(ctx, domain.Key{Namespace: d.Namespace, Name: name}, cmd)
	if errors.Is(err, domain.ErrAlreadyExists) {
		ro.collided = true
		return fmt.Errorf("replicaset %s/%s of deployment %s: the name is taken by another: %w", d.Namespace, name, d, err)
	}
	if err != nil {
		return fmt.Errorf("create replicaset %s/%s of deployment %s: %w", d.Namespace, name, d, err)
	}
	ro.r.log.Info("created replicaset", zap.String("deployment", d.String()), zap.String("replicaset", name),
		zap.Int32("replicas", replicas), zap.String("revision", rs.Annotations[domain.RevisionAnnotation]))
	ro.newRS, ro.progress = &rs, reasonCreated
	return nil
}

// bumpRevision keeps the new ReplicaSet's annotations in step with the
// Deployment, as Kubernetes' SetNewReplicaSetAnnotations does: it copies
// the Deployment's annotations as they are now (a change-cause annotated
// after the rollout shows on the current revision in kubectl rollout
// history), keeping any of its own the Deployment lacks, and gives it
// the next revision when it is older than another's (the Deployment went
// back to an earlier template, kubectl rollout undo).
func (ro *rollout) bumpRevision(ctx context.Context) error {
	rs := ro.newRS
	top := maxRevision(ro.old)
	ann, copied := copiedAnnotations(ro.d, rs.Annotations)
	bumped := revisionOf(*rs) <= top
	if bumped {
		ann[domain.RevisionAnnotation] = strconv.FormatInt(top+1, 10)
	}
	if !copied && !bumped {
		return nil
	}
	meta := rs.ObjectMeta
	meta.Annotations = ann
	got, err := ro.r.rsCommands.Execute(ctx, rs.Key(), domain.Precondition[domain.ReplicaSetCommand]{ResourceVersion: rs.ResourceVersion, Command: domain.UpdateReplicaSet{
		Meta: meta, Spec: rs.Spec,
	}})
	if err != nil {
		return fmt.Errorf("bring replicaset %s of deployment %s up to date with its annotations: %w", rs, ro.d, err)
	}
	*rs = got
	if bumped {
		ro.r.log.Info("replicaset is the newest revision again", zap.String("deployment", ro.d.String()), zap.String("replicaset", rs.Name), zap.Int64("revision", top+1))
		ro.progress = reasonUpdated
	}
	return nil
}

// copiedAnnotations are a ReplicaSet's annotations with the Deployment's
// copied over them but the skipped ones, as Kubernetes'
// copyDeploymentAnnotationsToReplicaSet: an annotation the Deployment
// dropped stays on the ReplicaSet. changed says whether any differed.
func copiedAnnotations(d domain.Deployment, rsAnnotations map[string]string) (out map[string]string, changed bool) {
	out = maps.Clone(rsAnnotations)
	if out == nil {
		out = map[string]string{}
	}
	for k, v := range d.Annotations {
		if skippedAnnotations[k] {
			continue
		}
		if cur, ok := out[k]; !ok || cur != v {
			out[k], changed = v, true
		}
	}
	return out, changed
}
