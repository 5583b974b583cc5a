package job

import (
	"encoding/json"
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

// completionIndexVar is the variable Kubernetes' Job controller puts in
// every container of an Indexed Job's pod: its index, read from the
// pod's label.
var completionIndexVar = json.RawMessage(`{"name":"JOB_COMPLETION_INDEX","valueFrom":{"fieldRef":{"apiVersion":"v1",` +
	`"fieldPath":"metadata.labels['` + domain.LabelJobCompletionIndex + `']"}}}`)

// indexedPod makes c, a new pod of the Indexed Job called job, the pod of
// index i, as Kubernetes' Job controller makes it: the index in its
// annotation and its label, JOB_COMPLETION_INDEX in each container's
// environment (unless the template sets it) and, unless the template
// names one, the hostname JOB-INDEX. The template's containers are not
// touched.
func indexedPod(c domain.CreatePod, job string, i int32) domain.CreatePod {
	index := strconv.Itoa(int(i))
	c.Annotations = domain.WithLabels(c.Annotations, domain.LabelJobCompletionIndex, index)
	c.Labels = domain.WithLabels(c.Labels, domain.LabelJobCompletionIndex, index)
	c.Spec.Containers = slices.Clone(c.Spec.Containers)
	for k := range c.Spec.Containers {
		c.Spec.Containers[k].Unmodeled = withFields(c.Spec.Containers[k].Unmodeled, func(f map[string]json.RawMessage) {
			var names []struct {
				Name string `json:"name"`
			}
			_ = json.Unmarshal(f["env"], &names)
			for _, v := range names {
				if v.Name == "JOB_COMPLETION_INDEX" {
					return
				}
			}
			var vars []json.RawMessage
			_ = json.Unmarshal(f["env"], &vars)
			f["env"], _ = json.Marshal(append(vars, completionIndexVar))
		})
	}
	c.Spec.Unmodeled = withFields(c.Spec.Unmodeled, func(f map[string]json.RawMessage) {
		var name string
		if _ = json.Unmarshal(f["hostname"], &name); name == "" {
			f["hostname"], _ = json.Marshal(job + "-" + index)
		}
	})
	return c
}

// withFields is the JSON object raw (none when empty) with change made
// to its fields; raw itself when it is not an object.
func withFields(raw json.RawMessage, change func(map[string]json.RawMessage)) json.RawMessage {
	f := map[string]json.RawMessage{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &f); err != nil {
			return raw
		}
	}
	change(f)
	out, err := json.Marshal(f)
	if err != nil {
		return raw
	}
	return out
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
