package events

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestBackoffDoublesUpToItsMaxAndStartsOverAfterASuccess(t *testing.T) {
	b := Backoff{Initial: time.Second, Max: 5 * time.Second}
	var got []time.Duration
	for range 5 {
		got = append(got, b.Failed())
	}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("waits (-want +got):\n%s", diff)
	}
	if b.Failures() != 5 {
		t.Errorf("failures %d, want 5", b.Failures())
	}
	b.Succeeded()
	if w := b.Failed(); w != time.Second || b.Failures() != 1 {
		t.Errorf("after a success: wait %s, failures %d", w, b.Failures())
	}
}
