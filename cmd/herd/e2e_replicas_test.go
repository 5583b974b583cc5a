package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"herd/events/pgtest"
)

// TestTwoReplicasOnOnePostgres runs two herd serve processes on one
// PostgreSQL database, with the machine's kubectl against each and a
// client-go informer (protobuf, its default) on the second: a write
// through either is read at once through the other, a stale write through
// one after a write through the other gets 409 Conflict, and the informer
// on the second sees every change made through the first, in the log's
// order, and resumes on the first from the resourceVersion the second
// gave it.
func TestTwoReplicasOnOnePostgres(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	a := startServe(t, serveOptions{Args: []string{"--database", url}})
	b := startServe(t, serveOptions{Args: []string{"--database", url}})
	ka, kb := newKubectl(t, a.URL), newKubectl(t, b.URL)

	cs := newClientset(t, &rest.Config{Host: b.URL, Timeout: 30 * time.Second})
	factory := informers.NewSharedInformerFactory(cs, 0)
	informer := factory.Core().V1().ConfigMaps().Informer()
	seen := &informerLog{}
	if _, err := informer.AddEventHandler(seen.handlers()); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	defer func() {
		cancel()
		factory.Shutdown()
	}()
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		t.Fatal("the informer on the second replica never synced")
	}
	synced, err := strconv.ParseInt(informer.LastSyncResourceVersion(), 10, 64)
	if err != nil {
		t.Fatal(err)
	}

	// Read-your-writes across replicas, both ways, with no wait between.
	ka.must(t, "create", "configmap", "settings", "--from-literal=interval=5")
	if got := kb.must(t, "get", "configmap", "settings", "-o", "jsonpath={.data.interval}"); got != "5" {
		t.Errorf("the second replica reads interval %q right after the first wrote 5", got)
	}
	kb.must(t, "create", "namespace", "team-a")
	if got := ka.must(t, "get", "namespace", "team-a", "-o", "jsonpath={.status.phase}"); got != "Active" {
		t.Errorf("the first replica reads namespace team-a as %q right after the second created it", got)
	}

	// Optimistic concurrency holds across replicas.
	var before struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	mustCall(t, http.StatusOK, http.MethodGet, a.URL+"/api/v1/namespaces/default/configmaps/settings", nil, &before)
	kb.must(t, "label", "configmap", "settings", "tier=gold")
	stale := configMapBody("settings", "7")
	stale["metadata"].(map[string]any)["resourceVersion"] = before.Metadata.ResourceVersion
	if code, body := call(t, http.MethodPut, a.URL+"/api/v1/namespaces/default/configmaps/settings", stale, nil); code != http.StatusConflict {
		t.Errorf("a replace through the first replica at resourceVersion %s, after the second changed the ConfigMap: %d %s; want 409",
			before.Metadata.ResourceVersion, code, body)
	}
	ka.must(t, "create", "configmap", "other", "--from-literal=interval=1", "-n", "team-a")
	ka.must(t, "delete", "configmap", "settings")

	// The informer on the second replica saw every change made through
	// the first, in order, exactly once.
	eventually(t, watchTimeout, func() error {
		want := changesAfter(t, a.URL, "configmap/", "ConfigMapDeleted", synced)
		got, resync := seen.snapshot()
		if !slices.Equal(got, want) {
			return fmt.Errorf("the informer on the second replica saw\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
		}
		if resync != 0 {
			return fmt.Errorf("the informer relisted %d times", resync)
		}
		return nil
	})

	// A watch resumes on the first replica from a resourceVersion the
	// second gave: the next change comes, and nothing before it.
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	mustCall(t, http.StatusOK, http.MethodGet, b.URL+"/api/v1/configmaps", nil, &list)
	watchCtx, stopWatch := context.WithTimeout(t.Context(), watchTimeout)
	defer stopWatch()
	req, err := http.NewRequestWithContext(watchCtx, http.MethodGet,
		a.URL+"/api/v1/configmaps?watch=1&resourceVersion="+list.Metadata.ResourceVersion, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("watch on the first replica from resourceVersion %s: %s", list.Metadata.ResourceVersion, resp.Status)
	}
	kb.must(t, "create", "configmap", "after", "--from-literal=interval=2")
	first := readWatchEvent(t, resp)
	if first.Type != "ADDED" || first.Object.Metadata.Name != "after" {
		t.Errorf("the first event of the resumed watch: %s %s, want ADDED after", first.Type, first.Object.Metadata.Name)
	}
}

// watchEvent is one event of a Kubernetes watch, as JSON.
type watchEvent struct {
	Type   string `json:"type"`
	Object struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	} `json:"object"`
}

// readWatchEvent reads the next event of a watch response.
func readWatchEvent(t *testing.T, resp *http.Response) watchEvent {
	t.Helper()
	var e watchEvent
	if err := json.NewDecoder(resp.Body).Decode(&e); err != nil {
		t.Fatalf("read the watch: %v", err)
	}
	return e
}
