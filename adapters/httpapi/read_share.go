package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"runtime"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Defaults of the share of expensive reads (Config.ExpensiveReads,
// Config.ReadTimeout).
const (
	// defaultReadTimeout bounds one expensive read. An indexed audit page
	// takes milliseconds; ten seconds is room for a long history on a
	// slow disk, not for a request that would hold a database
	// connection and a core for minutes.
	defaultReadTimeout = 10 * time.Second
	// expensiveReadRetryAfter is the Retry-After of a read refused for a
	// full share, in seconds: client-go waits that long and tries again.
	expensiveReadRetryAfter = 1
	// readQueueWait is how long a read waits for a place in a full share
	// before it is refused: long enough that a client's next read, sent
	// as the last one's answer arrives, finds its place; short, as API
	// Priority and Fairness's queues are, so that a flood is refused
	// rather than piled up.
	readQueueWait = time.Second
)

// expensiveReads is how many expensive reads run at once: half the
// cores, at least two. herd's database pool has max(GOMAXPROCS, 4)
// connections, so readers never hold more than half of them, nor more
// than half the CPU: the writer, node heartbeats and the health rules
// keep the rest, as kube-apiserver's API Priority and Fairness keeps the
// system-nodes level apart from every other client's.
func (c Config) expensiveReads() int {
	if c.ExpensiveReads > 0 {
		return c.ExpensiveReads
	}
	return max(2, runtime.GOMAXPROCS(0)/2)
}

func (c Config) readTimeout() time.Duration {
	if c.ReadTimeout > 0 {
		return c.ReadTimeout
	}
	return defaultReadTimeout
}

// expensiveRead admits r, a read of the log or of history (the audit
// trail, a timeline, an explanation, a series, a list of the past), to
// the share of such reads: when the share stays full for readQueueWait
// it answers 429 with Retry-After and ok is false. Admitted, r comes back with the
// read's deadline in its context, which cancels its queries in the
// database when it passes (a 504 then), and done must be called when
// the read is over.
func (s *Server) expensiveRead(w http.ResponseWriter, r *http.Request, kind string) (_ *http.Request, done func(), ok bool) {
	wait := time.NewTimer(readQueueWait)
	defer wait.Stop()
	select {
	case s.reads <- struct{}{}:
	case <-r.Context().Done():
		return r, nil, false // the client is gone
	case <-wait.C:
		s.shares.refused(levelReads, "expensive-reads")
		s.writeError(w, apierrors.NewTooManyRequests(fmt.Sprintf(
			"too many reads of history at once: herd runs %d at a time (audit, timelines, explanations, series, lists of the past), "+
				"so that node heartbeats keep their share; retry after %d second", cap(s.reads), expensiveReadRetryAfter),
			expensiveReadRetryAfter), kind, "")
		return r, nil, false
	}
	ctx, cancel := context.WithTimeout(r.Context(), s.cfg.readTimeout())
	return r.WithContext(ctx), func() {
		cancel()
		<-s.reads
	}, true
}
