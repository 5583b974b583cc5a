package httpapi

import (
	"net/http"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// DefaultMaxWatchesPerUser is how many watches one user may hold open at
// once unless configured otherwise. A watch holds a connection (a file
// descriptor) and tens of kilobytes for as long as it lasts; without a
// bound one viewer opening watches by the ten thousand ran herd out of
// descriptors, and heartbeats and /readyz with it. A client-go process
// watching every kind herd serves holds a few dozen; a thousand leaves
// room for many controllers under one user (and for every agent of a herd
// without credentials, whose requests are all one user) while bounding
// what one user holds to about 55 MB.
const DefaultMaxWatchesPerUser = 1000

// watchRetryAfter is the Retry-After, in seconds, of a watch refused for
// the user's bound: kube-apiserver's max-in-flight filter says 1.
const watchRetryAfter = 1

// watchLimiter counts the watches each user holds open.
type watchLimiter struct {
	// max is the bound per user; none when not positive.
	max  int
	mu   sync.Mutex
	open map[string]int
}

func newWatchLimiter(max int) *watchLimiter {
	if max == 0 {
		max = DefaultMaxWatchesPerUser
	}
	return &watchLimiter{max: max, open: map[string]int{}}
}

// acquire takes one of user's watches, or refuses with 429 and
// Retry-After when user holds the most already; release gives it back.
func (l *watchLimiter) acquire(user string) (release func(), err error) {
	if l.max <= 0 {
		return func() {}, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open[user] >= l.max {
		return nil, apierrors.NewTooManyRequests("user \""+user+"\" holds "+strconv.Itoa(l.open[user])+
			" watches open, the most one user may (--max-watches-per-user): close one, or retry later", watchRetryAfter)
	}
	l.open[user]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			if l.open[user]--; l.open[user] <= 0 {
				delete(l.open, user)
			}
		})
	}, nil
}

// isWatchRequest says whether r, which matched a route asking for ri, is
// a watch: a list with ?watch=true.
func isWatchRequest(r *http.Request, ri requestInfo) bool {
	return ri.Verb == "list" && isWatch(r)
}
