package projections

import (
	"context"
	"strings"
	"sync"

	"herd/domain"
)

// leaseNames is the name of every lease stream herd has committed — of
// every lease that exists or ever existed, deleted ones included — kept
// in memory by the Writer from the streams each group commit moved
// (command.Unit.ObserveCommits), so that a read of a lease herd never
// wrote (a kubelet's first lease GET at registration) is answered "not
// found" without a statement. It is filled from the lease rows on its
// first use, and only where the unit of work sees every append (SQLite);
// on PostgreSQL another replica may have created the lease, and every
// read goes to the row.
type leaseNames struct {
	mu     sync.Mutex
	loaded bool
	// names are "namespace/name".
	names map[string]struct{}
}

// leaseStreams is the prefix of every lease's stream in the log.
var leaseStreams = domain.LeaseAggregate.Stream("")

// ended is the Writer's observer of group commits (Unit.ObserveCommits):
// the lease streams a committed group moved join the names. A group
// whose commit failed may still have reached the disk: the names are
// then dropped and read from the rows again at the next use. Before the
// first load it does nothing: the load's rows show every commit whose
// observer ran before it.
func (x *leaseNames) ended(streams map[string]int64, err error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.loaded {
		return
	}
	if err != nil {
		x.loaded, x.names = false, nil
		return
	}
	for s := range streams {
		if key, ok := strings.CutPrefix(s, leaseStreams); ok {
			x.names[key] = struct{}{}
		}
	}
}

// has reports whether the lease namespace/name was ever committed,
// loading the names from v's rows (tombstones included) on first use. It
// holds the lock while it loads, so that the observer of a commit after
// the load's read waits and adds its streams on top of the rows.
func (x *leaseNames) has(ctx context.Context, v *LeaseView, key string) (bool, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !x.loaded {
		rows, _, err := v.Rows(ctx, "", 0)
		if err != nil {
			return false, err
		}
		x.names = make(map[string]struct{}, len(rows))
		for _, l := range rows {
			x.names[l.Namespace+"/"+l.Name] = struct{}{}
		}
		x.loaded = true
	}
	_, ok := x.names[key]
	return ok, nil
}

// NeverWritten reports whether herd knows for certain that the lease
// namespace/name was never created: no lease stream of that name was
// ever committed. Only a view that remembers (Remembering) on SQLite,
// whose one writer is this process, can know it, and not while a commit
// that may move that lease's stream is under way (the row may already
// show it to others); commits of other leases, under way nearly all the
// time while kubelets renew, do not matter to it. False means "read the
// row", never "it exists". A kubelet's lease GET before it creates its
// lease then reads nothing.
func (v *LeaseView) NeverWritten(ctx context.Context, namespace, name string) bool {
	w := v.w
	if w == nil || !w.unit.Authoritative() {
		return false
	}
	// Committing first, the names after: a commit of this stream not
	// under way at the first look either had not begun (the lease did
	// not exist then) or had ended, its stream already among the names.
	// The stream's name as a prefix also catches longer names' commits
	// ("n-1" and "n-10"): a needless row read, never a wrong answer.
	if w.unit.Committing(domain.LeaseStream(namespace, name)) {
		return false
	}
	known, err := w.leaseNames.has(ctx, v, namespace+"/"+name)
	return err == nil && !known
}

// leaseNeverWritten is NeverWritten as the Writer's own remembering view
// answers it, for the Writer's other views (NodeView.NodeLeaseRenewedAt).
func (w *Writer) leaseNeverWritten(ctx context.Context, namespace, name string) bool {
	w.leaseViewOnce.Do(func() { w.leaseView = NewLeaseView(w.log).Remembering(w) })
	return w.leaseView.NeverWritten(ctx, namespace, name)
}
