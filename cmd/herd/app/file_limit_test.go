package app

import (
	"syscall"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// TestFileLimitIsRaisedToTheHardLimit: at start herd's soft limit on open
// files is its hard limit, whatever it was, and the log says what it is.
func TestFileLimitIsRaisedToTheHardLimit(t *testing.T) {
	before, err := fileLimit()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Setrlimit(syscall.RLIMIT_NOFILE, &before) })
	if before.Max > 64 {
		lowered := syscall.Rlimit{Cur: 64, Max: before.Max}
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lowered); err != nil {
			t.Fatal(err)
		}
	}
	core, logs := observer.New(zap.InfoLevel)
	if err := raiseFileLimit(zap.New(core)); err != nil {
		t.Fatal(err)
	}
	after, err := fileLimit()
	if err != nil {
		t.Fatal(err)
	}
	if after.Cur != before.Max {
		t.Errorf("soft limit %d, want the hard limit %d", after.Cur, before.Max)
	}
	said := logs.FilterMessage("open file limit").All()
	if len(said) != 1 || said[0].ContextMap()["soft"] != after.Cur {
		t.Errorf("the log said %v, want the open file limit %d", said, after.Cur)
	}
}
