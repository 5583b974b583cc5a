package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
	"k8s.io/utils/clock"
)

// TokenFileCheckInterval is how often a ReloadingTokenFile looks at its
// file's modification time, size and identity: a token added or revoked
// takes effect within a few seconds, for the cost of one stat.
const TokenFileCheckInterval = 5 * time.Second

// ReloadingTokenFile is a TokenFile that is read again when it changes,
// so that an operator adds or revokes a token without restarting herd. A
// file that no longer parses leaves the tokens as they were: a typo must
// not lock every client out, nor let anyone in.
type ReloadingTokenFile struct {
	path   string
	log    *zap.Logger
	tokens atomic.Pointer[TokenFile]

	mu sync.Mutex // serialises reads of the file; guards seen
	// seen is the file as it was when last read, parsed or not; nil after
	// it could not be found, so that its return is a change.
	seen os.FileInfo
}

var _ Authenticator = (*ReloadingTokenFile)(nil)

// NewReloadingTokenFile reads the token file at path; unlike a later
// reload, a first read that fails is an error.
func NewReloadingTokenFile(path string, log *zap.Logger) (*ReloadingTokenFile, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("--token-auth-file: %w", err)
	}
	tf, err := LoadTokenFile(path)
	if err != nil {
		return nil, err
	}
	r := &ReloadingTokenFile{path: path, log: log, seen: fi}
	r.tokens.Store(tf)
	return r, nil
}

// Authenticate implements Authenticator with the tokens read last.
func (r *ReloadingTokenFile) Authenticate(req *http.Request) (User, error) {
	return r.tokens.Load().Authenticate(req)
}

// Len is the number of tokens herd accepts now.
func (r *ReloadingTokenFile) Len() int { return r.tokens.Load().Len() }

// Reload reads the file now, changed or not, as SIGHUP asks; why says
// what asked, for the log.
func (r *ReloadingTokenFile) Reload(why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fi, err := os.Stat(r.path)
	if err != nil {
		r.lost(err, why)
		return
	}
	r.load(fi, why)
}

// Check reads the file again when it looks changed since it was last
// read: another modification time or size, or another file (an editor
// that writes a new file and renames it over the old one).
func (r *ReloadingTokenFile) Check() {
	r.mu.Lock()
	defer r.mu.Unlock()
	fi, err := os.Stat(r.path)
	switch {
	case err != nil:
		if r.seen != nil {
			r.lost(err, "the file changed")
		}
	case r.seen == nil || !sameFile(r.seen, fi):
		r.load(fi, "the file changed")
	}
}

// Run checks the file at every tick of t (TokenFileCheckInterval apart,
// made by the caller so that the first tick is counted from when herd
// starts, not from when this goroutine is scheduled) until ctx ends, and
// stops t.
func (r *ReloadingTokenFile) Run(ctx context.Context, t clock.Ticker) {
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C():
			r.Check()
		}
	}
}

// load reads the file whose stat is fi. fi is remembered even when the
// file does not parse, so that a broken file is reported once, not at
// every check. r.mu is held.
func (r *ReloadingTokenFile) load(fi os.FileInfo, why string) {
	r.seen = fi
	tf, err := LoadTokenFile(r.path)
	if err != nil {
		r.log.Warn("the token file does not parse: herd keeps the tokens it had",
			zap.String("token_file", r.path), zap.String("why", why), zap.Int("tokens", r.Len()), zap.Error(err))
		return
	}
	r.tokens.Store(tf)
	r.log.Info("the token file was read again", zap.String("token_file", r.path), zap.String("why", why), zap.Int("tokens", tf.Len()))
}

// lost says that the file cannot be read at all. r.mu is held.
func (r *ReloadingTokenFile) lost(err error, why string) {
	r.seen = nil
	r.log.Warn("the token file cannot be read: herd keeps the tokens it had",
		zap.String("token_file", r.path), zap.String("why", why), zap.Int("tokens", r.Len()), zap.Error(err))
}

// sameFile reports whether two stats are of the same, unchanged file.
func sameFile(a, b os.FileInfo) bool {
	return os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
