package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"herd/events/pgtest"
)

// TestDatabaseDownAnswers503AndComesBack stops the PostgreSQL server under
// a running herd serve: reads and writes get 503 with Retry-After (not a
// crash, not a hang, not a 500), /readyz says herd is not ready, and once
// the database is back herd answers again by itself, with what was
// acknowledged before and nothing that was refused.
func TestDatabaseDownAnswers503AndComesBack(t *testing.T) {
	t.Parallel()
	db, url := pgtest.Private(t)
	srv := startServe(t, serveOptions{Args: []string{"--database", url}})
	createConfigMap(t, srv.URL, "default", "before", "1")

	if err := db.Stop("immediate"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{http.MethodGet, "/api/v1/namespaces/default/configmaps/before", nil},
		{http.MethodGet, "/api/v1/configmaps", nil},
		{http.MethodPost, "/api/v1/namespaces/default/configmaps", configMapBody("during", "2")},
	} {
		a := send(t, c.method, srv.URL+c.path, c.body)
		if a.code != http.StatusServiceUnavailable || a.header.Get("Retry-After") == "" {
			t.Errorf("%s %s with the database down: %d, Retry-After %q; want 503 with a Retry-After\n%s",
				c.method, c.path, a.code, a.header.Get("Retry-After"), a.body)
		}
	}
	if code, _ := call(t, http.MethodGet, srv.URL+"/readyz", nil, nil); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz with the database down: %d, want 503", code)
	}
	if srv.exited() {
		t.Fatalf("herd serve exited when the database went away:\n%s", srv.output.String())
	}

	if err := db.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, readyTimeout, func() error {
		if code, body := call(t, http.MethodGet, srv.URL+"/readyz", nil, nil); code != http.StatusOK {
			return fmt.Errorf("/readyz after the database came back: %d %s", code, body)
		}
		return nil
	})
	mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/namespaces/default/configmaps/before", nil, nil)
	mustCall(t, http.StatusNotFound, http.MethodGet, srv.URL+"/api/v1/namespaces/default/configmaps/during", nil, nil)
	createConfigMap(t, srv.URL, "default", "after", "3")
}

// TestAWatchFollowsTheLogAcrossADatabaseRestart: PostgreSQL restarts under
// a running herd serve while a client watches ConfigMaps. A ConfigMap
// made once the database is back reaches that client — on the watch it
// had open, or, if herd ended that watch, on the one the client opens
// again from the last resourceVersion it saw, as client-go's reflector
// does. A watch left open that no longer delivers fails the test.
func TestAWatchFollowsTheLogAcrossADatabaseRestart(t *testing.T) {
	t.Parallel()
	db, url := pgtest.Private(t)
	srv := startServe(t, serveOptions{Args: []string{"--database", url}})
	createConfigMap(t, srv.URL, "default", "before", "1")
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/api/v1/configmaps", nil, &list)

	ctx, cancel := context.WithTimeout(t.Context(), watchTimeout)
	defer cancel()
	open := func(rv string) (*http.Response, *json.Decoder) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/api/v1/configmaps?watch=1&allowWatchBookmarks=false&resourceVersion="+rv, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("watch from resourceVersion %s: %v", rv, err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("watch from resourceVersion %s: %s", rv, resp.Status)
		}
		return resp, json.NewDecoder(resp.Body)
	}
	resp, dec := open(list.Metadata.ResourceVersion)
	defer func() { _ = resp.Body.Close() }()

	if err := db.Stop("immediate"); err != nil {
		t.Fatal(err)
	}
	if err := db.Start(); err != nil {
		t.Fatal(err)
	}
	eventually(t, readyTimeout, func() error {
		if a := send(t, http.MethodPost, srv.URL+"/api/v1/namespaces/default/configmaps", configMapBody("after", "2")); a.code != http.StatusCreated {
			return fmt.Errorf("create after the database came back: %d %s", a.code, a.body)
		}
		return nil
	})

	last, reopened := list.Metadata.ResourceVersion, 0
	for {
		var e struct {
			Type   string `json:"type"`
			Object struct {
				Metadata struct {
					Name            string `json:"name"`
					ResourceVersion string `json:"resourceVersion"`
				} `json:"metadata"`
			} `json:"object"`
		}
		if err := dec.Decode(&e); err != nil {
			if ctx.Err() != nil {
				t.Fatalf("no ADDED of the ConfigMap made after the restart within %s (watches opened again: %d, last resourceVersion %s)", watchTimeout, reopened, last)
			}
			// herd ended the watch: a client opens it again from where it was.
			_ = resp.Body.Close()
			if reopened++; reopened > 3 {
				t.Fatalf("the watch ended %d times (last: %v)", reopened, err)
			}
			resp, dec = open(last)
			continue
		}
		if e.Type == "ERROR" {
			t.Fatalf("the watch answered an error after the database restarted: %+v", e)
		}
		if e.Object.Metadata.ResourceVersion != "" {
			last = e.Object.Metadata.ResourceVersion
		}
		if e.Type == "ADDED" && e.Object.Metadata.Name == "after" {
			t.Logf("the ConfigMap made after the restart arrived (watches opened again: %d)", reopened)
			return
		}
	}
}
