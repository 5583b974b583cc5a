package main

import (
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"herd/events/pgtest"
)

// TestPrimaryDiesStandbyPromotedNoAcknowledgedWriteLost runs herd serve on
// a PostgreSQL primary with a synchronous streaming standby, through a
// multi-host URL that picks whichever of the two takes writes. Writers
// create ConfigMaps without pause; the primary is killed (SIGQUIT,
// PostgreSQL's immediate stop) and the standby promoted. While no
// primary answers, herd says 503 with Retry-After and stays up; after the
// promotion it writes to the new primary by itself. Every ConfigMap herd
// acknowledged with 201 is there afterwards, and replay --verify finds the
// views equal to a rebuild of the log.
func TestPrimaryDiesStandbyPromotedNoAcknowledgedWriteLost(t *testing.T) {
	t.Parallel()
	t0 := time.Now()
	primary, url := pgtest.Private(t)
	standby := primary.Standby(t)
	multi := strings.Replace(url, fmt.Sprintf("127.0.0.1:%d", primary.Port()),
		fmt.Sprintf("127.0.0.1:%d,127.0.0.1:%d", primary.Port(), standby.Port()), 1) + "&target_session_attrs=read-write"
	t.Logf("phase: standby ready at %s", time.Since(t0))
	srv := startServe(t, serveOptions{Args: []string{"--database", multi}})

	writers := startConfigMapWriters(t, 4, func() []string { return []string{srv.URL} })
	t.Logf("phase: serving at %s", time.Since(t0))
	writers.waitAcked(50)
	t.Logf("phase: 50 acked at %s", time.Since(t0))
	if err := primary.Stop("immediate"); err != nil {
		t.Fatal(err)
	}
	beforePromotion := writers.count()
	writers.waitAnswered(http.StatusServiceUnavailable) // writers meet a database with no primary
	if err := standby.Promote(); err != nil {
		t.Fatal(err)
	}
	t.Logf("phase: promoted at %s", time.Since(t0))
	writers.waitAcked(beforePromotion + 50)
	t.Logf("phase: 50 more acked at %s", time.Since(t0))
	writers.stop()
	if srv.exited() {
		t.Fatalf("herd serve exited during the failover:\n%s", srv.output.String())
	}

	writers.checkStored(srv.URL)
	t.Logf("phase: checked at %s", time.Since(t0))
	defer func() { t.Logf("phase: verified at %s", time.Since(t0)) }()
	res := herd(t, nil, "replay", "--verify", "--database", strings.Replace(multi, fmt.Sprintf("127.0.0.1:%d,", primary.Port()), "", 1))
	if res.Code != 0 {
		t.Errorf("replay --verify after the failover: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
}

// TestSIGKILLOfAReplicaLosesNoAcknowledgedWrite runs two herd serve
// replicas on one PostgreSQL database with writers on both, and kills one
// with SIGKILL mid-load: its writers move to the other. Every write either
// replica acknowledged is there afterwards, read through the survivor, and
// replay --verify finds the views equal to a rebuild of the log. A
// replica started again on the same database carries on.
func TestSIGKILLOfAReplicaLosesNoAcknowledgedWrite(t *testing.T) {
	t.Parallel()
	url := pgtest.URL(t)
	a := startServe(t, serveOptions{Args: []string{"--database", url}})
	b := startServe(t, serveOptions{Args: []string{"--database", url}})
	var aDead atomic.Bool
	writers := startConfigMapWriters(t, 6, func() []string {
		if aDead.Load() {
			return []string{b.URL}
		}
		return []string{a.URL, b.URL}
	})
	writers.waitAcked(100)
	if _, err := a.signal(syscall.SIGKILL, stopTimeout); err != nil {
		t.Fatal(err)
	}
	aDead.Store(true)
	writers.waitAcked(writers.count() + 100)
	writers.stop()
	writers.checkStored(b.URL)
	if res := herd(t, nil, "replay", "--verify", "--database", url); res.Code != 0 {
		t.Errorf("replay --verify after SIGKILL of a replica: exit %d\n%s%s", res.Code, res.Stdout, res.Stderr)
	}
	again := startServe(t, serveOptions{Args: []string{"--database", url}})
	writers.checkStored(again.URL)
	createConfigMap(t, again.URL, "default", "after", "1")
}
