package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"herd/cmd/herd/whatif"
)

// TestWhatIfSaysTheWindowCrossesHerdsDowntime: herd's own downtime is
// an input of the replay, and the answer says so in words, beside the
// count of what would have fared differently.
func TestWhatIfSaysTheWindowCrossesHerdsDowntime(t *testing.T) {
	at := func(s string) time.Time {
		tm, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return tm
	}
	rep := whatif.Report{
		Since: at("2026-11-28T09:00:00Z"), Until: at("2026-11-28T09:20:00Z"), From: 1, To: 90, Events: 90,
		Downtimes: []whatif.Downtime{{From: at("2026-11-28T09:01:10Z"), Until: at("2026-11-28T09:14:10Z")}},
	}
	var out bytes.Buffer
	printWhatIf(&out, rep, whatif.Config{Serve: newWhatIfOptions().serve})
	for _, want := range []string{
		"the window crosses herd's downtime from 2026-11-28T09:01:10Z to 2026-11-28T09:14:10Z",
		"every node had a full grace period from 2026-11-28T09:14:10Z",
		"0 nodes and 0 pods would have fared differently",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the answer lacks %q:\n%s", want, out.String())
		}
	}
}
