package main

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"herd/events"
	"herd/events/pgtest"
)

// TestServeReplicasRunTheReconcilersOnOne: two herd serve replicas on one
// PostgreSQL database are both ready, and both say the first leads the
// reconcilers; when it is killed (SIGKILL, no goodbye to the database)
// the second takes over.
func TestServeReplicasRunTheReconcilersOnOne(t *testing.T) {
	herdBinary(t) // skipped with -short, before a database is made
	database := pgtest.URL(t)
	a := startServe(t, serveOptions{Args: []string{"--database", database}})
	eventually(t, readyTimeout, func() error { return leads(t, a, "(this replica)", 1) })
	// The heartbeat retention policy (on by default) is led too.
	eventually(t, readyTimeout, func() error {
		body, err := fetch(t, a.URL+"/readyz?verbose")
		if err == nil && !strings.Contains(body, "[+]retention led by ") {
			err = fmt.Errorf("/readyz?verbose names no leader of the retention policy:\n%s", body)
		}
		return err
	})
	b := startServe(t, serveOptions{Args: []string{"--database", database}})
	first := fmt.Sprintf("led by %s:%d since", hostname(t), a.cmd.Process.Pid)
	eventually(t, readyTimeout, func() error { return leads(t, b, first, 0) })

	if err := a.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-a.done
	killed := time.Now()
	eventually(t, 60*time.Second, func() error { return leads(t, b, "(this replica)", 1) })
	t.Logf("the second replica led %s after the first was killed", time.Since(killed).Round(100*time.Millisecond))
}

// leads checks that p's /readyz?verbose says want of the reconcilers'
// leader and that its herd_leader{job="reconcilers"} is gauge.
func leads(t *testing.T, p *herdProc, want string, gauge int) error {
	t.Helper()
	body, err := fetch(t, p.URL+"/readyz?verbose")
	if err != nil {
		return err
	}
	if line := reconcilersLine(body); !strings.Contains(line, want) {
		return fmt.Errorf("/readyz?verbose says %q, want %q", line, want)
	}
	metrics, err := fetch(t, p.URL+"/metrics")
	if err != nil {
		return err
	}
	series := `herd_leader{job="reconcilers"} ` + strconv.Itoa(gauge)
	if !strings.Contains(metrics, series+"\n") {
		return fmt.Errorf("/metrics has no %s", series)
	}
	return nil
}

func reconcilersLine(body string) string {
	for line := range strings.Lines(body) {
		if strings.Contains(line, "reconcilers") {
			return strings.TrimSpace(line)
		}
	}
	return ""
}

// fetch GETs url and returns the body of a 200.
func fetch(t *testing.T, url string) (string, error) {
	resp, err := get(t.Context(), apiClient, url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: %s %s", url, resp.Status, data)
	}
	return string(data), nil
}

// hostname is the host part of a replica's default name.
func hostname(t *testing.T) string {
	t.Helper()
	host, _, _ := strings.Cut(events.DefaultReplica(), ":")
	return host
}
