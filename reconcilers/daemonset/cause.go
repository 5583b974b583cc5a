package daemonset

import (
	"context"
	"slices"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// fitChanges are a node's changes that move whether a DaemonSet's pod
// should run there: its coming, its taints and its labels.
var fitChanges = []string{
	domain.NodeRegistered{}.EventType(), domain.NodeTainted{}.EventType(), domain.NodeUntainted{}.EventType(),
	domain.NodeLabelsChanged{}.EventType(),
}

// specChange is ds's last change of spec as read: its creation or a
// change, up to its version.
func specChange(ds domain.DaemonSet) reconcilers.Change {
	return reconcilers.SpecChange(domain.DaemonSetStream(ds.Namespace, ds.Name), ds.Version, domain.DaemonSetCreated{}, domain.DaemonSetChanged{})
}

// arrivalChanges are a node's changes after which a DaemonSet's pod may
// be made there: its fit (fitChanges) and its turning Ready, since a
// node that is not Ready gets no new pod.
var arrivalChanges = append(slices.Clone(fitChanges), domain.TypesHolding(domain.NodeBecameReady{}.EventType())...)

// arrived accepts a change of arrivalChanges: any but a report's
// changes (NodeStatusChanged) that did not turn the node Ready.
func arrived(ev domain.Event) bool {
	if s, ok := ev.(domain.NodeStatusChanged); ok {
		return s.BecameReady
	}
	return true
}

// createCauses are the causes of the pods a DaemonSet makes on nodes in
// this reconcile, by node: for each, the newest of the DaemonSet's last
// change of spec (which the pods follow), the node's last change of fit
// or readiness as read (a node come or turned Ready, a taint taken off,
// a label put on), and the loss by another since of the DaemonSet's pod
// bound there (an eviction, a deletion, a stop; found in the log, as the
// pod may be gone), traced back to where it began (ForeignLossOrigin;
// not one the reconciler deleted itself, in a rolling update). A pod
// made on a node that joined names the node's coming; one made again for
// an evicted one names the eviction; one made for a new template names
// the change. A node whose causes the log lacks is left out: its pod
// names what queued the reconcile.
func createCauses(ctx context.Context, w world, owned []domain.Pod, nodes []string) (map[string]events.Record, error) {
	spec, _, err := reconcilers.LastChange(ctx, specChange(w.ds))
	if err != nil {
		return nil, err
	}
	versions := make(map[string]int64, len(w.sites))
	for _, s := range w.sites {
		versions[s.node.Name] = s.node.Version
	}
	var kept []string
	for _, p := range owned {
		if !p.Terminating() {
			kept = append(kept, p.UID)
		}
	}
	// One search of the log for the losses of every node's pod, newer
	// than the spec: a fleet's rollout asks for thousands of nodes.
	losses, err := reconcilers.GoneLossCausesByNode(ctx, w.ds.Namespace, reconcilers.GeneratedBase(w.ds.Name), w.ds.UID, kept, spec.Position, nodes)
	if err != nil {
		return nil, err
	}
	causes := make(map[string]events.Record, len(nodes))
	for _, n := range nodes {
		fit, _, err := reconcilers.LastChange(ctx, reconcilers.Change{Stream: domain.NodeStream(n), UpTo: versions[n], Types: arrivalChanges, Made: arrived})
		if err != nil {
			return nil, err
		}
		best, ok := reconcilers.Newest(spec, fit)
		if lost, gone := losses[n]; gone && lost.Position > best.Position {
			origin, foreign, err := reconcilers.ForeignLossOrigin(ctx, lost)
			if err != nil {
				return nil, err
			}
			if foreign {
				best, ok = origin, true
			}
		}
		if ok {
			causes[n] = best
		}
	}
	return causes, nil
}

// statusCause is ctx whose status record names what moved the
// DaemonSet's status, as Kubernetes' controller reckons it from the
// DaemonSet, its pods and the nodes: the newest of its last change of
// spec (a new generation, the pods it rolled, which follow that change),
// the last change that moves a count of one of its pods as read (one
// turning ready, stopping, being deleted) and, for each node it made or
// deleted a pod on in this reconcile, the node's last change of fit as
// read (a node come, a taint put on or taken off, a label). Nodes it
// wrote nothing on moved no count of desired pods since it last looked.
// The record that queued the key stays the cause when the log holds
// none.
func statusCause(ctx context.Context, w world, owned []domain.Pod, act actions) (context.Context, error) {
	changes := []reconcilers.Change{specChange(w.ds)}
	touched := map[string]bool{}
	for _, n := range act.create {
		touched[n] = true
	}
	for _, p := range act.delete {
		touched[p.Spec.NodeName] = true
	}
	for _, s := range w.sites {
		if touched[s.node.Name] {
			changes = append(changes, reconcilers.Change{Stream: domain.NodeStream(s.node.Name), UpTo: s.node.Version, Types: fitChanges})
		}
	}
	return reconcilers.BecauseOfCount(ctx, owned, changes...)
}

// deleteCause is ctx in which the deletion of each of pods, a DaemonSet's
// pods it deletes in this reconcile, names what asked for it, as read:
// for a pod on a node where none may stay any more, the node's last
// change of fit (a taint, a label); for a pod that finished, the report
// of its phase; for the others (an older template rolled out, a node's
// surplus), the DaemonSet's last change of spec. The record that queued
// the key (another pod turning ready, which let the rollout go on) is
// what let the deletion happen now, not what it is for. A pod whose
// change the log lacks keeps ctx's cause.
func deleteCause(ctx context.Context, w world, pods []domain.Pod) (context.Context, error) {
	sites := make(map[string]site, len(w.sites))
	for _, s := range w.sites {
		sites[s.node.Name] = s
	}
	spec := specChange(w.ds)
	// A rollout deletes many pods for one change of spec: it is read
	// once.
	var specRec *events.Record
	causes := make(map[string]events.Record, len(pods))
	for _, p := range pods {
		stream := domain.PodStream(p.Namespace, p.Name)
		var c reconcilers.Change
		s, placed := sites[p.Spec.NodeName]
		switch {
		case placed && !s.shouldContinue:
			c = reconcilers.Change{Stream: domain.NodeStream(s.node.Name), UpTo: s.node.Version, Types: fitChanges}
		case p.Status.Phase == domain.PodFailed, p.Status.Phase == domain.PodSucceeded:
			c = reconcilers.Change{Stream: stream, UpTo: p.Version, Types: []string{domain.PodStatusUpdated{}.EventType()}}
		case specRec != nil:
			if specRec.ID != "" {
				causes[stream] = *specRec
			}
			continue
		default:
			c = spec
		}
		rec, ok, err := reconcilers.LastChange(ctx, c)
		if err != nil {
			return ctx, err
		}
		if c.Stream == spec.Stream {
			specRec = &rec
		}
		if ok {
			causes[stream] = rec
		}
	}
	return events.WithStreamCauses(ctx, causes), nil
}
