package projections

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestVerifyInPlaceRefusesSQLite: the in-place verify is PostgreSQL's;
// on a SQLite log it refuses, naming the engine and the way to verify
// there, and leaves the log and its views as they were.
func TestVerifyInPlaceRefusesSQLite(t *testing.T) {
	ctx := t.Context()
	log := openStore(t).Log()
	writeContractFleet(t, log)
	before := contractSnapshot(t, log)
	head, err := log.Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	diff, _, err := VerifyInPlace(ctx, log, RebuildOptions{})
	if err == nil || diff != nil || !strings.Contains(err.Error(), "the log is on sqlite; verify a copy of its file") {
		t.Fatalf("verify in place on SQLite: %v, %v; want it refused", diff, err)
	}
	if after, err := log.Head(ctx); err != nil || after != head {
		t.Errorf("the log's head after the refusal: %d, %v; want %d", after, err, head)
	}
	if d := cmp.Diff(before, contractSnapshot(t, log)); d != "" {
		t.Errorf("the refusal changed the views (-before +after):\n%s", d)
	}
}
