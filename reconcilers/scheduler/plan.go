package scheduler

import (
	"cmp"
	"encoding/json"
	"maps"
	"slices"

	"herd/domain"
)

// decision is what a pass decided for one pending pod: the node to bind it
// to, or why it fits nowhere.
type decision struct {
	Namespace, Name string
	// Node is where the pod goes; "" when no node fits.
	Node string
	// Message counts the reasons no node fits, when Node is "".
	Message string
	// Recorded is true when the pod already carries Message, or one that
	// differs only in its counts, so there is nothing to write.
	Recorded bool
}

// pending reports whether p waits for the scheduler: one of herd's own
// pods, not bound, not being deleted, not finished.
func pending(p domain.Pod) bool {
	return p.Exists() && p.Source == domain.SourceHerd && p.Spec.NodeName == "" && !p.Terminating() && !p.Finished()
}

// occupies reports whether p counts against its node's resources: bound and
// not finished. A terminating pod still holds its node until it is
// finalized.
func occupies(p domain.Pod) bool {
	return p.Exists() && p.Spec.NodeName != "" && !p.Finished()
}

// plan is one scheduling pass over pods (every pod there is) onto nodes,
// in memory: the pending pods in the order they were created, each on the
// best node for it given the pods already bound and those placed before
// it in this pass.
func plan(nodes []domain.Node, pods []domain.Pod, resources resourceScorer) []decision {
	p := newPass(nodes, pods)
	p.resources = resources
	var queue []*domain.Pod
	for i := range pods {
		if pending(pods[i]) {
			queue = append(queue, &pods[i])
		}
	}
	slices.SortStableFunc(queue, func(a, b *domain.Pod) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	out := make([]decision, 0, len(queue))
	for _, pod := range queue {
		out = append(out, p.place(pod))
	}
	return out
}

// pass is the scheduler's picture of the fleet during one pass.
type pass struct {
	nodes []domain.Node // candidates, by name
	rooms []room        // rooms[i] is nodes[i]'s
	// classes caches, per pod shape (node selector and tolerations),
	// which nodes pass the checks that do not depend on load: pods
	// created from one template share one entry.
	classes map[string]*class
	// feasible is scratch space for place, reused from pod to pod.
	feasible []int
	// resources is the scoring strategy's score of a node's resources.
	resources resourceScorer
}

// class is what the load-independent checks say about one pod shape.
type class struct {
	// fit lists the indices of the nodes that pass them, in name order.
	fit []int
	// avoided[j] counts node fit[j]'s untolerated PreferNoSchedule taints.
	avoided []int64
	// reasons counts why the other nodes fail them.
	reasons map[string]int
}

func newPass(nodes []domain.Node, pods []domain.Pod) *pass {
	p := &pass{classes: map[string]*class{}}
	for _, n := range nodes {
		if candidate(n) {
			p.nodes = append(p.nodes, n)
		}
	}
	slices.SortFunc(p.nodes, func(a, b domain.Node) int { return cmp.Compare(a.Name, b.Name) })
	p.rooms = make([]room, len(p.nodes))
	index := make(map[string]int, len(p.nodes))
	for i, n := range p.nodes {
		p.rooms[i] = roomOf(n)
		index[n.Name] = i
	}
	for _, pod := range pods {
		if !occupies(pod) {
			continue
		}
		if i, ok := index[pod.Spec.NodeName]; ok {
			p.rooms[i].add(requestOf(pod))
		}
	}
	return p
}

// classOf returns the cached checks for pod's shape, working them out on
// first use.
func (p *pass) classOf(pod *domain.Pod) *class {
	// The key only needs to tell shapes apart; JSON sorts map keys, so
	// equal selectors give equal keys.
	raw, _ := json.Marshal(struct {
		S map[string]string
		T []domain.Toleration
	}{pod.Spec.NodeSelector, pod.Spec.Tolerations})
	key := string(raw)
	if c, ok := p.classes[key]; ok {
		return c
	}
	c := &class{reasons: map[string]int{}}
	prefer := preferredTolerations(pod.Spec.Tolerations)
	for i, n := range p.nodes {
		if r := staticReason(pod.Spec, n); r != "" {
			c.reasons[r]++
			continue
		}
		c.fit = append(c.fit, i)
		c.avoided = append(c.avoided, avoidedTaints(n.Taints, prefer))
	}
	p.classes[key] = c
	return c
}

// place decides pod's node and, when there is one, counts the pod on it.
func (p *pass) place(pod *domain.Pod) decision {
	d := decision{Namespace: pod.Namespace, Name: pod.Name}
	c := p.classOf(pod)
	q := requestOf(*pod)
	p.feasible = p.feasible[:0]
	var worst int64
	for j, i := range c.fit {
		if p.rooms[i].fits(q) {
			p.feasible = append(p.feasible, j)
			worst = max(worst, c.avoided[j])
		}
	}
	best, bestScore := -1, int64(-1)
	for _, j := range p.feasible {
		i := c.fit[j]
		// Strictly greater: on a tie the node first by name keeps it.
		if s := score(p.resources, &p.rooms[i], q, c.avoided[j], worst); s > bestScore {
			best, bestScore = i, s
		}
	}
	if best >= 0 {
		p.rooms[best].add(q)
		d.Node = p.nodes[best].Name
		return d
	}
	reasons := maps.Clone(c.reasons)
	for _, i := range c.fit {
		for _, r := range p.rooms[i].shortfalls(q) {
			reasons[r]++
		}
	}
	d.Message = unschedulableMessage(len(p.nodes), reasons)
	cond, ok := pod.Condition(domain.PodConditionScheduled)
	d.Recorded = ok && cond.Status == domain.ConditionFalse && domain.SameUnschedulableReasons(cond.Message, d.Message)
	return d
}
