package health

// resyncCases are the passes BenchmarkResync measures: as herd runs them
// (a full read every fullReadEvery), and from memory alone.
var resyncCases = []resyncCase{
	{"as-run", func(*Reconciler) {}},
	{"from-memory", func(r *Reconciler) {
		r.checks.mu.Lock()
		r.checks.since = 0
		r.checks.mu.Unlock()
	}},
}
