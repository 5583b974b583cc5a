package job

import (
	"slices"
	"strconv"

	"herd/domain"
	"herd/reconcilers"
)

// indexed parts an Indexed Job's running pods into those it keeps, one
// for each index it still wants, the oldest first, and those it
// deletes, as Kubernetes' Job controller does: a pod of no index, of
// one past the Job's completions or completed already, or a second pod
// of one index.
func indexed(j domain.Job, running []domain.Pod) (keep, extra []domain.Pod) {
	done, _ := domain.ParseIndexes(j.Status.CompletedIndexes)
	held := map[int32]bool{}
	oldest := slices.Clone(running)
	slices.SortStableFunc(oldest, func(a, b domain.Pod) int { return a.CreatedAt.Compare(b.CreatedAt) })
	for _, p := range oldest {
		i, ok := domain.CompletionIndex(p)
		if !ok || i >= completions(j) || done.Has(i) || held[i] {
			extra = append(extra, p)
			continue
		}
		held[i] = true
		keep = append(keep, p)
	}
	return keep, extra
}

// pendingIndexes are the n lowest indexes of the Indexed Job that are
// neither completed nor held by one of running.
func pendingIndexes(j domain.Job, running []domain.Pod, n int) []int32 {
	done, _ := domain.ParseIndexes(j.Status.CompletedIndexes)
	held := map[int32]bool{}
	for _, p := range running {
		if i, ok := domain.CompletionIndex(p); ok {
			held[i] = true
		}
	}
	var out []int32
	for i := done.From(0); i < completions(j) && len(out) < n; i = done.From(i + 1) {
		if !held[i] {
			out = append(out, i)
		}
	}
	return out
}

// completions is the Job's completions; an Indexed Job always has them.
func completions(j domain.Job) int32 {
	if c := j.Spec.Completions; c != nil {
		return *c
	}
	return 0
}

// indexedPodName is the name of a new pod of index i of the Job called
// job: "JOB-i-" and a suffix, the Job's name cut so that the index
// stays, as Kubernetes' Job controller names them.
func indexedPodName(ids Identities, job string, i int32) string {
	tail := "-" + strconv.Itoa(int(i)) + "-"
	if len(job)+len(tail) > reconcilers.MaxGeneratedBase {
		job = job[:reconcilers.MaxGeneratedBase-len(tail)]
	}
	return job + tail + ids.Suffix()
}

// indexedPod makes c, a new pod of an Indexed Job, the pod of index i:
// the index in its annotation and its label.
func indexedPod(c domain.CreatePod, i int32) domain.CreatePod {
	index := strconv.Itoa(int(i))
	c.Annotations = domain.WithLabels(c.Annotations, domain.LabelJobCompletionIndex, index)
	c.Labels = domain.WithLabels(c.Labels, domain.LabelJobCompletionIndex, index)
	return c
}

// succeededIndexes are the completion indexes of the pods among owned
// whose UIDs are succeeded, for CountJobPods.
func succeededIndexes(owned []domain.Pod, succeeded []string) map[string]int32 {
	out := map[string]int32{}
	for _, p := range owned {
		if i, ok := domain.CompletionIndex(p); ok && slices.Contains(succeeded, p.UID) {
			out[p.UID] = i
		}
	}
	return out
}
