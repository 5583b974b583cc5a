package health

import (
	"slices"
	"sync"
	"time"

	"herd/domain"
	"herd/projections"
)

// deadlines is every node's heartbeat deadline, in memory: seeded from the
// view (at the first need, and by every full resync that reads the view
// in full, which also heals any drift: see checks) and fed by the
// dispatcher, which hands the health rules every
// heartbeat record as it reads the log (Watches), and by every node's
// reconcile. The monitor pass finds the silent nodes here, so no index
// has to follow each node's last heartbeat in the database: a heartbeat
// writes only its event and the node's small hot row. After a restart
// the seed reads each node's last heartbeat from the view, and a node
// that stays silent is marked one grace period after herd's start
// (Reconciler.BeginTerm): its silence while herd was down is herd's.
type deadlines struct {
	mu sync.Mutex
	m  map[string]deadline
}

// deadline is what the monitor needs of one node.
type deadline struct {
	lastHeartbeat, registeredAt time.Time
	// ready is the node's Ready status as last read (the view's, a
	// reconcile's, or Unknown once marked): a full resync from memory
	// counts the fleet from it as the view would.
	ready domain.ConditionStatus
	// watched is false for a node already marked (Ready Unknown): it can
	// miss no further deadline until it reports again.
	watched bool
}

// seed takes ds, the nodes expected to report, as the view has them; a
// heartbeat the dispatcher handed over since the view was read is kept.
func (d *deadlines) seed(ds []projections.NodeDeadline) {
	m := make(map[string]deadline, len(ds))
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, nd := range ds {
		e := deadline{lastHeartbeat: nd.LastHeartbeat, registeredAt: nd.RegisteredAt, ready: nd.Ready, watched: nd.Ready != domain.ConditionUnknown}
		if old, ok := d.m[nd.Name]; ok && old.lastHeartbeat.After(e.lastHeartbeat) {
			e.lastHeartbeat, e.watched = old.lastHeartbeat, true
		}
		m[nd.Name] = e
	}
	d.m = m
}

// reset forgets every deadline: the next need seeds them afresh.
func (d *deadlines) reset() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.m = nil
}

// seeded reports whether seed has run.
func (d *deadlines) seeded() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.m != nil
}

// heartbeat records that node name reported, or renewed its lease, at at. A node not known yet
// waits for its reconcile (or the seed) to say whether it is expected
// to report.
func (d *deadlines) heartbeat(name string, at time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.m[name]; ok && at.After(e.lastHeartbeat) {
		e.lastHeartbeat, e.watched = at, true
		d.m[name] = e
	}
}

// observe takes node n (read under name) as its reconcile read it.
func (d *deadlines) observe(n domain.Node, name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		return // the seed will read it
	}
	if !n.ExpectedToReport() {
		delete(d.m, name)
		return
	}
	ready, _ := n.Condition(domain.ConditionReady)
	e := deadline{lastHeartbeat: n.LastHeartbeat, registeredAt: n.RegisteredAt, ready: ready.Status, watched: ready.Status != domain.ConditionUnknown}
	if old, ok := d.m[name]; ok && old.lastHeartbeat.After(e.lastHeartbeat) {
		e.lastHeartbeat, e.watched = old.lastHeartbeat, true
	}
	d.m[name] = e
}

// marked notes that node name was marked unreachable: it is watched again
// once it reports.
func (d *deadlines) marked(name string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.m[name]; ok {
		e.watched, e.ready = false, domain.ConditionUnknown
		d.m[name] = e
	}
}

// namedDeadline is one node's deadline, copied out of the deadlines.
type namedDeadline struct {
	name string
	deadline
}

// snapshot appends every node kept in memory to buf[:0] and returns it:
// the deadlines are held only while they are copied, and a full resync
// from memory counts the fleet from the copy, as seed does from the view.
func (d *deadlines) snapshot(buf []namedDeadline) []namedDeadline {
	d.mu.Lock()
	defer d.mu.Unlock()
	buf = buf[:0]
	for name, e := range d.m {
		buf = append(buf, namedDeadline{name: name, deadline: e})
	}
	return buf
}

// stale names, in order, the watched nodes past their deadline at now,
// the health rules having watched since since.
func (d *deadlines) stale(since, now time.Time, cfg Config) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []string
	for name, e := range d.m {
		if e.watched && domain.SilentSince(e.lastHeartbeat, e.registeredAt, since, now, cfg.GracePeriod, cfg.StartupGracePeriod) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}
