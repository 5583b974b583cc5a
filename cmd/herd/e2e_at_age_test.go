package main

import (
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"herd/adapters/httpapi"
)

// TestAgesAreAsOfTheMomentAsked: herd node list, node get and pod list
// --at show each object's AGE as it was at the moment asked, not as it is
// now: at a time, counted to that time; at a resourceVersion, to when
// that event was recorded.
func TestAgesAreAsOfTheMomentAsked(t *testing.T) {
	t.Parallel()
	srv := startServe(t, serveOptions{})
	server := "--server=" + srv.URL
	node := registerAgent(t, srv.URL, "age-01")
	var pod corev1.Pod
	mustCall(t, http.StatusCreated, http.MethodPost, srv.URL+"/api/v1/namespaces/default/pods", map[string]any{
		"metadata": map[string]any{"name": "age-pod"},
		"spec":     map[string]any{"containers": []map[string]any{{"name": "app", "image": "busybox"}}},
	}, &pod)

	// A moment two days and two hours after both were made: their AGE
	// then is that, whenever the question is asked.
	later := 50 * time.Hour
	at := node.CreationTimestamp.Add(later).Format(time.RFC3339)
	want := duration.HumanDuration(later)
	ageOf := func(out, name string) string {
		t.Helper()
		header, rows := table(t, out)
		i := slices.Index(header, "AGE")
		row, ok := byName(rows)[name]
		if i < 0 || !ok {
			t.Fatalf("no AGE of %s in:\n%s", name, out)
		}
		return row[i]
	}
	if got := ageOf(mustHerd(t, "node", "list", server, "--at", at).Stdout, "age-01"); got != want {
		t.Errorf("herd node list --at %s: age-01 AGE %s, want %s", at, got, want)
	}
	if got := ageOf(mustHerd(t, "node", "get", "age-01", server, "--at", at).Stdout, "age-01"); got != want {
		t.Errorf("herd node get --at %s: age-01 AGE %s, want %s", at, got, want)
	}
	podAt := pod.CreationTimestamp.Add(later).Format(time.RFC3339)
	out := mustHerd(t, "pod", "list", server, "--at", podAt).Stdout
	if got := ageOf(out, "default"); got != want { // the NAMESPACE column comes first
		t.Errorf("herd pod list --at %s: age-pod AGE %s, want %s:\n%s", podAt, got, want, out)
	}

	// At the node's registration, as a resourceVersion: the AGE is that of
	// the event recorded then.
	var reg httpapi.AuditEventList
	mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/apis/herd.dev/v1/auditevents?tail=1&before="+strconv.FormatInt(mustInt(t, node.ResourceVersion)+1, 10), nil, &reg)
	if len(reg.Items) != 1 {
		t.Fatalf("the event at resourceVersion %s: %+v", node.ResourceVersion, reg)
	}
	wantRV := duration.HumanDuration(reg.Items[0].RecordedAt.Sub(node.CreationTimestamp.Time))
	if got := ageOf(mustHerd(t, "node", "list", server, "--at", node.ResourceVersion).Stdout, "age-01"); got != wantRV {
		t.Errorf("herd node list --at %s: age-01 AGE %s, want %s", node.ResourceVersion, got, wantRV)
	}
	srv.stop()
}

func mustInt(t *testing.T, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
