package main

import (
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
