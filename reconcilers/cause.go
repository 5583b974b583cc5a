package reconcilers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"herd/domain"
	"herd/events"
)

// Causes. What a reconcile appends names as its cause (causation id) the
// record whose change its decision read: the condition that turned, the
// operator's command, the owner whose spec changed. Reconciles are
// level-based and a key is queued by many records, so the record that
// queued it last is often not that one (another node's readiness moving
// the fleet, a heartbeat). Hence two tiers, both carried by the
// reconcile's context:
//
//   - the runner puts there the newest record that queued the key, as the
//     fallback cause, and the log to look better ones up in;
//   - a reconciler that can name what its decision read says so before it
//     issues the command, with Because (a record it holds) or BecauseOf
//     (the last change of an object it read, found in the log up to the
//     version it read), and the command's events record that.
//
// A status counted over many objects names the newest change among
// those it counted (CountCause). Only a decision that reads no particular
// change (a resync's pass) keeps the fallback; a timer's reconcile (a
// resync, a requeue) has none and records no cause.

// causeLogKey carries the log a reconcile looks causes up in.
type causeLogKey struct{}

// withCauseLog is ctx with l, the log BecauseOf reads.
func withCauseLog(ctx context.Context, l events.Queryer) context.Context {
	if l == nil {
		return ctx
	}
	return context.WithValue(ctx, causeLogKey{}, l)
}

// Because is ctx whose commands record rec as their cause (and rec's
// correlation as theirs), keeping the actor and source ctx names.
func Because(ctx context.Context, rec events.Record) context.Context {
	md := events.MetadataFrom(ctx)
	return events.WithMetadata(ctx, events.CausedBy(rec, md.Actor, md.Source))
}

// Change names the change a decision read: the newest event of Stream, up
// to UpTo (the stream's version in the state read; 0 for no bound), of
// one of Types, that Made accepts.
type Change struct {
	Stream string
	UpTo   int64
	Types  []string
	Made   func(domain.Event) bool
	// Others passes over the events the reconcile's own reconciler
	// made (its actor's): they followed a change it read before (the
	// owner's spec, another pod's eviction), which is the one to name.
	Others bool
}

// ChangeOf is the Change made by the newest event of type E in stream, up
// to version upTo, that made accepts (any, when made is nil).
func ChangeOf[E domain.Event](stream string, upTo int64, made func(E) bool) Change {
	var e E
	// The change may be one of a composite event's parts (a
	// HeartbeatMissed's taints and conditions).
	return Change{Stream: stream, UpTo: upTo, Types: domain.TypesHolding(e.EventType()), Made: func(ev domain.Event) bool {
		return domain.Holds(ev, made)
	}}
}

// LastChange is the record c names, read from the reconcile's log; false
// when the log holds none (or the reconcile has no log: a node's agent).
func LastChange(ctx context.Context, c Change) (events.Record, bool, error) {
	own := ""
	if c.Others {
		own = events.MetadataFrom(ctx).Actor
	}
	return lastChangeBy(ctx, c, own)
}

// lastChangeBy is LastChange passing over the records actor made ("" for
// none).
func lastChangeBy(ctx context.Context, c Change, actor string) (events.Record, bool, error) {
	l, _ := ctx.Value(causeLogKey{}).(events.Queryer)
	if l == nil || c.Stream == "" {
		return events.Record{}, false, nil
	}
	return events.NewestMatching(ctx, l, events.Filter{Stream: c.Stream, Types: c.Types, UpToVersion: c.UpTo}, func(rec events.Record) bool {
		if actor != "" && rec.Metadata.Actor == actor {
			return false
		}
		ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
		return err == nil && (c.Made == nil || c.Made(ev))
	})
}

// BecauseOf is ctx whose commands record the change c names as their
// cause; ctx as it was (the fallback) when the log holds no such change.
func BecauseOf(ctx context.Context, c Change) (context.Context, error) {
	rec, ok, err := LastChange(ctx, c)
	if err != nil || !ok {
		return ctx, err
	}
	return Because(ctx, rec), nil
}

// Newest is the newest of recs by log position (the zero Record and false
// when none is set): of several changes a decision read, the one that
// made it now rather than before.
func Newest(recs ...events.Record) (events.Record, bool) {
	var out events.Record
	for _, r := range recs {
		if r.ID != "" && r.Position > out.Position {
			out = r
		}
	}
	return out, out.ID != ""
}

// BecauseEach is ctx in which what is appended to each object's stream
// records the change changes names for it (keyed by stream) as its
// cause, where the log holds one: a batch over many objects committed
// together, each decided from its own change. Objects whose change the
// log lacks keep ctx's cause.
func BecauseEach(ctx context.Context, changes []Change) (context.Context, error) {
	causes := make(map[string]events.Record, len(changes))
	for _, c := range changes {
		rec, ok, err := LastChange(ctx, c)
		if err != nil {
			return ctx, err
		}
		if ok {
			causes[c.Stream] = rec
		}
	}
	return events.WithStreamCauses(ctx, causes), nil
}

// SpecChange is the last change of what an owner (a ReplicaSet, a Job, a
// DaemonSet, a Deployment) asks for, in its stream up to the version
// read: its creation or a change of its spec or scale, the events given
// as zero values.
func SpecChange(stream string, version int64, created, changed domain.Event) Change {
	return Change{Stream: stream, UpTo: version, Types: []string{created.EventType(), changed.EventType()}}
}

// PodCountChanges are a pod's changes that move what a status counting
// pods (a workload's replicas, a budget's healthy pods) says of it: its
// coming, its owners and labels (whose it is), its readiness (reported,
// or marked while its node is not Ready), its stop and the request to
// delete it (a terminating pod is no longer active).
var PodCountChanges = []string{
	domain.PodCreated{}.EventType(), domain.PodOwnersChanged{}.EventType(), domain.PodMetadataChanged{}.EventType(),
	domain.PodStatusUpdated{}.EventType(), domain.PodMarkedNotReady{}.EventType(), domain.PodStopped{}.EventType(),
	domain.PodDeletionRequested{}.EventType(),
}

// PodLossChanges are a pod's changes that take it out of what its
// controller counts as its own: its owners or labels changed, its stop,
// the request to delete it (an eviction's, a drain's, an operator's).
var PodLossChanges = []string{
	domain.PodOwnersChanged{}.EventType(), domain.PodMetadataChanged{}.EventType(),
	domain.PodStopped{}.EventType(), domain.PodDeletionRequested{}.EventType(),
}

// PodArrivalChanges are a pod's changes that give it to a controller
// that owns pods by reference: its creation, its owners changed.
var PodArrivalChanges = []string{domain.PodCreated{}.EventType(), domain.PodOwnersChanged{}.EventType()}

// SurplusCause is the change that gave a controller more pods than it
// wants: the newest of the changes given (the owner's spec, as read) and
// of each pod's arrival (PodArrivalChanges) made by another than the
// reconcile's reconciler — a pod made by hand with the owner's
// reference, or adopted. false when the log holds none.
func SurplusCause(ctx context.Context, pods []domain.Pod, changes ...Change) (events.Record, bool, error) {
	return newestPodChange(ctx, pods, PodArrivalChanges, changes...)
}

// CountCause is the change a status counted from pods made it as it is:
// the newest of the changes given (the owner's own, as read) and of each
// pod's last change of PodCountChanges up to the version read. A pod
// whose last change of any kind (its ResourceVersion) is older than the
// newest change found cannot hold a newer one, so the pods are looked at
// newest first and the search stops there: a large owner's quiet pods
// are not read. A pod's change that the reconcile's own reconciler made
// (a pod it created or deleted) is passed over: it followed a change
// read before (the owner's spec, another pod's eviction), which is the
// one named. false when the log holds none.
func CountCause(ctx context.Context, pods []domain.Pod, changes ...Change) (events.Record, bool, error) {
	return newestPodChange(ctx, pods, PodCountChanges, changes...)
}

// ReplacementCause is the change that made a controller create pods in
// place of lost ones: the newest of the changes given (the owner's spec,
// as read) and of each lost pod's last change of PodLossChanges made by
// another (an eviction, a stop, a label taken off). A ReplicaSet's pod
// made for one a drain evicted names the eviction, as an operator asking
// "why is this pod here?" expects; one made for a new replica count
// names that. false when the log holds none.
func ReplacementCause(ctx context.Context, lost []domain.Pod, changes ...Change) (events.Record, bool, error) {
	return newestPodChange(ctx, lost, PodLossChanges, changes...)
}

// lossPage is how many losses GoneLossCause reads at a time, going
// back from the newest.
const lossPage = 16

// GoneLossCause is the newest change of PodLossChanges after position
// after, made by another than the reconcile's reconciler, of a pod gone
// from what a controller read: a pod of namespace whose name begins with
// prefix, created with the controller whose UID is controller as its
// controller, and not one of kept (the UIDs the controller still counts
// as its own). ReplacementCause finds the losses of the pods read; a pod
// evicted and gone before the controller's pass is read by no view, so
// its loss is found in the log. after is the newest cause found among
// what was read: only a newer loss can name the replacement. false when
// the log holds none (or the reconcile has no log).
func GoneLossCause(ctx context.Context, namespace, prefix, controller string, kept []string, after int64) (events.Record, bool, error) {
	var found events.Record
	err := goneLosses(ctx, namespace, prefix, controller, kept, after, func(_ events.Queryer, rec events.Record) (bool, error) {
		found = rec
		return true, nil
	})
	return found, found.ID != "", err
}

// GoneLossCausesByNode are GoneLossCause's losses by the node the pod
// was bound to when it was lost, the newest of each of nodes: a
// DaemonSet's pods, one a node. The search goes back over at most
// lossPage losses more than twice as many as nodes, newest first, and
// stops once each of nodes has one: a rollout that replaced a fleet's
// pods is not read again on every pass.
func GoneLossCausesByNode(ctx context.Context, namespace, prefix, controller string, kept []string, after int64, nodes []string) (map[string]events.Record, error) {
	out := map[string]events.Record{}
	want := make(map[string]bool, len(nodes))
	for _, n := range nodes {
		want[n] = true
	}
	budget := lossPage + 2*len(nodes)
	err := goneLosses(ctx, namespace, prefix, controller, kept, after, func(l events.Queryer, rec events.Record) (bool, error) {
		budget--
		on, err := podNodeAt(ctx, l, rec)
		if err != nil {
			return false, err
		}
		if _, seen := out[on]; want[on] && !seen {
			out[on] = rec
		}
		return len(out) == len(want) || budget <= 0, nil
	})
	return out, err
}

// goneLosses hands visit GoneLossCause's losses, newest first, until it
// returns true.
func goneLosses(ctx context.Context, namespace, prefix, controller string, kept []string, after int64,
	visit func(events.Queryer, events.Record) (bool, error)) error {
	l, _ := ctx.Value(causeLogKey{}).(events.Queryer)
	if l == nil || controller == "" {
		return nil
	}
	own := events.MetadataFrom(ctx).Actor
	f := events.Filter{StreamPrefix: domain.PodStream(namespace, prefix), Types: PodLossChanges, After: after, Newest: true, Limit: lossPage}
	for {
		recs, err := l.Query(ctx, f)
		if err != nil {
			return err
		}
		for i := len(recs) - 1; i >= 0; i-- {
			if own != "" && recs[i].Metadata.Actor == own {
				continue
			}
			uid, owners, err := podOwnedAs(ctx, l, recs[i])
			if err != nil {
				return err
			}
			if uid == "" || slices.Contains(kept, uid) || !slices.ContainsFunc(owners, func(o domain.OwnerReference) bool {
				return o.Controller && o.UID == controller
			}) {
				continue
			}
			if stop, err := visit(l, recs[i]); stop || err != nil {
				return err
			}
		}
		if len(recs) < f.Limit {
			return nil
		}
		f.Before = recs[0].Position
	}
}

// lossHops bounds how far LossOrigin follows a pod's losses back.
const lossHops = 8

// LossOrigin is the loss that began rec, a pod's loss (PodLossChanges):
// a loss made in answer to an earlier loss of the same pod — the stop
// herd's termination made for a deletion request, an eviction's — is
// traced back to that earlier one, so that a replacement names the
// eviction an operator asked for, not the stop it led to, however far
// the pod's going had got when its controller looked. rec itself when it
// answered nothing of its pod's (or the reconcile has no log).
func LossOrigin(ctx context.Context, rec events.Record) (events.Record, error) {
	l, _ := ctx.Value(causeLogKey{}).(events.Queryer)
	if l == nil || rec.ID == "" {
		return rec, nil
	}
	for range lossHops {
		if rec.Metadata.CausationID == "" {
			return rec, nil
		}
		recs, err := l.Query(ctx, events.Filter{ID: rec.Metadata.CausationID, Stream: rec.Stream, Types: PodLossChanges, Limit: 1})
		if err != nil {
			return events.Record{}, err
		}
		if len(recs) == 0 {
			return rec, nil
		}
		rec = recs[0]
	}
	return rec, nil
}

// ForeignLossOrigin is LossOrigin's origin of rec, and whether another
// than the reconcile's own reconciler made it: false for a pod the
// reconciler deleted itself (a rolling update's), whose replacement
// follows what that deletion followed, not the deletion.
func ForeignLossOrigin(ctx context.Context, rec events.Record) (events.Record, bool, error) {
	origin, err := LossOrigin(ctx, rec)
	if err != nil {
		return events.Record{}, false, err
	}
	own := events.MetadataFrom(ctx).Actor
	return origin, own == "" || origin.Metadata.Actor != own, nil
}

// UIDs are the pods' UIDs.
func UIDs(pods []domain.Pod) []string {
	out := make([]string, len(pods))
	for i, p := range pods {
		out[i] = p.UID
	}
	return out
}

// newestPodChange is the newest of changes and of each pod's last change
// of types by another than the reconcile's reconciler (CountCause).
func newestPodChange(ctx context.Context, pods []domain.Pod, types []string, changes ...Change) (events.Record, bool, error) {
	var best events.Record
	for _, c := range changes {
		rec, ok, err := LastChange(ctx, c)
		if err != nil {
			return events.Record{}, false, err
		}
		if ok {
			best, _ = Newest(best, rec)
		}
	}
	pods = slices.Clone(pods)
	slices.SortFunc(pods, func(a, b domain.Pod) int { return cmp.Compare(b.ResourceVersion, a.ResourceVersion) })
	for _, p := range pods {
		if best.ID != "" && p.ResourceVersion <= best.Position {
			break
		}
		rec, ok, err := LastChange(ctx, Change{Stream: domain.PodStream(p.Namespace, p.Name), UpTo: p.Version, Types: types, Others: true})
		if err != nil {
			return events.Record{}, false, err
		}
		if ok {
			best, _ = Newest(best, rec)
		}
	}
	return best, best.ID != "", nil
}

// BecauseOfCount is ctx whose commands record CountCause's change as
// their cause; ctx as it was (the fallback) when the log holds none.
func BecauseOfCount(ctx context.Context, pods []domain.Pod, changes ...Change) (context.Context, error) {
	rec, ok, err := CountCause(ctx, pods, changes...)
	if err != nil || !ok {
		return ctx, err
	}
	return Because(ctx, rec), nil
}

// BecauseOfNewest is ctx whose commands record the newest of the changes
// given as their cause: of several gates a decision waited on, the one
// that opened last. ctx as it was (the fallback) when the log holds none.
func BecauseOfNewest(ctx context.Context, changes ...Change) (context.Context, error) {
	return BecauseOfCount(ctx, nil, changes...)
}

// PodEndChanges are a pod's changes that end it for a controller
// counting finished pods while the pod is still read: its phase
// reported (Succeeded, Failed), its stop, the request to delete it. Its
// leaving the fleet is FinalizationCause's.
var PodEndChanges = []string{
	domain.PodStatusUpdated{}.EventType(), domain.PodStopped{}.EventType(), domain.PodDeletionRequested{}.EventType(),
}

// EndCause is the newest change of PodEndChanges of pods, each up to the
// version read, whoever made it: a count of pods that ended names the
// end it reflects, even when the reconcile's own reconciler made it (a
// Job's pods it stopped itself). false when the log holds none.
func EndCause(ctx context.Context, pods []domain.Pod) (events.Record, bool, error) {
	var best events.Record
	for _, p := range pods {
		rec, ok, err := LastChange(ctx, Change{Stream: domain.PodStream(p.Namespace, p.Name), UpTo: p.Version, Types: PodEndChanges})
		if err != nil {
			return events.Record{}, false, err
		}
		if ok {
			best, _ = Newest(best, rec)
		}
	}
	return best, best.ID != "", nil
}

// RestartCause is the status report of one of pods that brought their
// containers' restarts, summed over pods, to at least threshold: a Job
// that restarts its pods in place fails once they have restarted as
// often as its backoff limit allows, and its stopping of them names the
// restart that crossed it, not a later report that only repeated a
// count. Each pod's reports are read up to the version read, oldest
// first, and every increase of its count is placed in log order among
// the others'. false when the log holds none (or the reconcile has no
// log), or the pods' reports never reach threshold.
func RestartCause(ctx context.Context, pods []domain.Pod, threshold int32) (events.Record, bool, error) {
	l, _ := ctx.Value(causeLogKey{}).(events.Queryer)
	if l == nil {
		return events.Record{}, false, nil
	}
	type restart struct {
		rec   events.Record
		added int32
	}
	var restarts []restart
	for _, p := range pods {
		recs, err := l.Query(ctx, events.Filter{Stream: domain.PodStream(p.Namespace, p.Name),
			Types: []string{domain.PodStatusUpdated{}.EventType()}, UpToVersion: p.Version})
		if err != nil {
			return events.Record{}, false, err
		}
		var had int32
		for _, rec := range recs {
			ev, err := domain.UnmarshalEvent(rec.Type, rec.Payload)
			if err != nil {
				return events.Record{}, false, err
			}
			u, ok := ev.(domain.PodStatusUpdated)
			if !ok {
				continue
			}
			if n := u.Status.Restarts(); n > had {
				restarts = append(restarts, restart{rec, n - had})
				had = n
			}
		}
	}
	slices.SortFunc(restarts, func(a, b restart) int { return cmp.Compare(a.rec.Position, b.rec.Position) })
	var sum int32
	for _, r := range restarts {
		if sum += r.added; sum >= threshold {
			return r.rec, true, nil
		}
	}
	return events.Record{}, false, nil
}

// finalizationPage is how many finalizations FinalizationCause reads at
// a time, going back from the newest.
const finalizationPage = 16

// FinalizationCause is the newest finalization (PodFinalized) in the
// reconcile's log of a pod of namespace whose name begins with prefix
// and whose UID is one of uids: what took pods out of the views, for a
// decision that reads them gone (a count that forgets them). A pod gone
// is read by no view, so its stream is found in the log: the
// finalizations of the pods of that prefix, newest first, each pod's
// UID read from its creation before it. A UID is finalized once, so the
// record found is the one the views showed. false when the log holds
// none (or the reconcile has no log).
func FinalizationCause(ctx context.Context, namespace, prefix string, uids []string) (events.Record, bool, error) {
	l, _ := ctx.Value(causeLogKey{}).(events.Queryer)
	if l == nil || len(uids) == 0 {
		return events.Record{}, false, nil
	}
	finalized := domain.TypesHolding(domain.PodFinalized{}.EventType())
	f := events.Filter{StreamPrefix: domain.PodStream(namespace, prefix), Types: finalized, Newest: true, Limit: finalizationPage}
	for {
		recs, err := l.Query(ctx, f)
		if err != nil {
			return events.Record{}, false, err
		}
		for i := len(recs) - 1; i >= 0; i-- {
			ev, err := domain.UnmarshalEvent(recs[i].Type, recs[i].Payload)
			if err != nil || !domain.Holds[domain.PodFinalized](ev, nil) {
				continue
			}
			uid, err := createdUID(ctx, l, recs[i])
			if err != nil {
				return events.Record{}, false, err
			}
			if slices.Contains(uids, uid) {
				return recs[i], true, nil
			}
		}
		if len(recs) < f.Limit {
			return events.Record{}, false, nil
		}
		f.Before = recs[0].Position
	}
}

// createdUID is the UID of the pod that fin, a record of its stream,
// ended: the one its last creation before fin gave it ("" when the log
// holds none).
func createdUID(ctx context.Context, l events.Queryer, fin events.Record) (string, error) {
	created, err := lastBefore[domain.PodCreated](ctx, l, fin)
	if errors.Is(err, errUnreadable) {
		// An unreadable creation names no pod: the search goes on.
		return "", nil
	}
	return created.UID, err
}

// podNodeAt is the node the pod that rec, a record of its stream, is
// of was bound to before rec (its last PodScheduled before it); "" when
// it was bound to none.
func podNodeAt(ctx context.Context, l events.Queryer, rec events.Record) (string, error) {
	s, err := lastBefore[domain.PodScheduled](ctx, l, rec)
	return s.NodeName, err
}

// errUnreadable is lastBefore's error for a record it cannot decode.
var errUnreadable = errors.New("unreadable record")

// lastBefore is the last event of type E in rec's stream before rec;
// E's zero value when the log holds none.
func lastBefore[E domain.Event](ctx context.Context, l events.Queryer, rec events.Record) (E, error) {
	var out E
	recs, err := l.Query(ctx, events.Filter{Stream: rec.Stream, Types: []string{out.EventType()}, Before: rec.Position, Newest: true, Limit: 1})
	if err != nil || len(recs) == 0 {
		return out, err
	}
	ev, err := domain.UnmarshalEvent(recs[0].Type, recs[0].Payload)
	if err != nil {
		return out, fmt.Errorf("%w: %s at %d: %w", errUnreadable, recs[0].Type, recs[0].Position, err)
	}
	out, _ = ev.(E)
	return out, nil
}

// podOwnedAs is the UID and the owners of the pod that rec, a record of
// its stream, is of, as they stood before rec: the UID its stream's last
// creation before rec gave it, and the owners of that creation or of a
// change of owners after it (an adoption). "" and none when the log
// holds no creation or it cannot be read.
func podOwnedAs(ctx context.Context, l events.Queryer, rec events.Record) (string, []domain.OwnerReference, error) {
	recs, err := l.Query(ctx, events.Filter{Stream: rec.Stream, Types: []string{domain.PodCreated{}.EventType()},
		Before: rec.Position, Newest: true, Limit: 1})
	if err != nil || len(recs) == 0 {
		return "", nil, err
	}
	ev, err := domain.UnmarshalEvent(recs[0].Type, recs[0].Payload)
	created, ok := ev.(domain.PodCreated)
	if err != nil || !ok {
		// An unreadable creation names no pod: the search goes on.
		return "", nil, nil //nolint:nilerr // see above
	}
	changed, err := l.Query(ctx, events.Filter{Stream: rec.Stream, Types: []string{domain.PodOwnersChanged{}.EventType()},
		After: recs[0].Position, Before: rec.Position, Newest: true, Limit: 1})
	if err != nil {
		return "", nil, err
	}
	owners := created.Owners
	if len(changed) == 1 {
		if ev, err := domain.UnmarshalEvent(changed[0].Type, changed[0].Payload); err == nil {
			if c, ok := ev.(domain.PodOwnersChanged); ok {
				owners = c.Owners
			}
		}
	}
	return created.UID, owners, nil
}
