package main

import (
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"herd/events"
)

// TestReplayVerifyOnObjectsWrittenBeforeTheObjectModel: a data directory
// that herd wrote before ConfigMaps and PodDisruptionBudgets moved onto
// the object model verifies clean: the rows rebuilt from its log are the
// rows it holds, byte for byte. The file holds, written by that herd's
// commands: a ConfigMap created with labels, annotations, binary data and
// an owner, replaced (immutable), deleted and created again, a second one
// whose data needs escaping in JSON, a third that keeps every field; a
// budget created with an owner, its status recorded, an eviction
// granted, its spec changed (a new generation) and its owner released; a
// second budget created and deleted, a third that keeps every field.
func TestReplayVerifyOnObjectsWrittenBeforeTheObjectModel(t *testing.T) {
	replayVerifyClean(t, "objects_before_object_model.db.gz", 16)
}

// TestReplayVerifyOnReplicaSetsWrittenBeforeTheObjectModel: the same for
// ReplicaSets and Deployments. The file holds, written by that herd's
// commands: a ReplicaSet created with labels, annotations, an owner and a
// template that uses every field, changed, scaled, its status recorded,
// its owner released and another set by an update, deleted in the
// foreground and then for good, created again and deleted with its pods
// orphaned, and a second one that stays; a Deployment created, changed
// (paused, a new template), scaled, its status recorded with a revision
// and conditions and then without them, deleted in the foreground and
// then for good, created again and deleted orphaning, and a second one
// (Recreate) that stays.
func TestReplayVerifyOnReplicaSetsWrittenBeforeTheObjectModel(t *testing.T) {
	replayVerifyClean(t, "replicasets_before_object_model.db.gz", 22)
}

// TestReplayVerifyOnDaemonSetsWrittenBeforeTheObjectModel: a data
// directory that herd wrote before DaemonSets and Jobs moved onto the
// object model verifies clean. The file holds, written by that herd's
// commands: a DaemonSet created with labels, annotations and an owner,
// given a new template (a new template generation), then a slower
// rollout (a new generation only) on a resourceVersion, its status
// recorded on a precondition, its owner released, deleted in the
// foreground and finished, then created again; a second deleted with its
// pods orphaned, a third being deleted in the foreground; a Job created
// with a generated selector and an owner, suspended, its status recorded,
// pods counted and forgotten, its status recorded on a precondition, its
// owner released, deleted in the foreground and finished, then created
// again with a selector of its own; a second deleted with its pods
// orphaned, a third with a failure counted and deleted.
func TestReplayVerifyOnDaemonSetsWrittenBeforeTheObjectModel(t *testing.T) {
	replayVerifyClean(t, "daemonsets_before_object_model.db.gz", 28)
}

// replayVerifyClean copies the gzipped data directory file of testdata
// into a fresh data directory and runs `herd replay --verify` on it,
// which must find the views equal to a rebuild of all n events.
func replayVerifyClean(t *testing.T, file string, n int) {
	t.Helper()
	dir := t.TempDir()
	gz, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = gz.Close() }()
	r, err := gzip.NewReader(gz)
	if err != nil {
		t.Fatal(err)
	}
	out, err := os.Create(filepath.Join(dir, events.DatabaseFileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, r); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runHerd(t, "replay", "--verify", "--data-dir", dir)
	if err != nil {
		t.Fatalf("replay --verify: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if !strings.Contains(stdout, fmt.Sprintf("the live views equal a rebuild of %d events", n)) {
		t.Errorf("replay --verify says:\n%s%s", stdout, stderr)
	}
}

// TestReplayVerifyOnLeasesWrittenBeforeTheObjectModel: the same for
// Leases. The file holds, written by that herd's API: a Lease created
// with labels, annotations (that need escaping in JSON) and every time
// of its spec, renewed, given a new holder, strategy and preferred
// holder, relabelled without its annotations (a change of metadata
// alone, recorded as LeaseUpdated), deleted, created again and renewed;
// a second created with an owner that does not exist, which the garbage
// collector deleted.
func TestReplayVerifyOnLeasesWrittenBeforeTheObjectModel(t *testing.T) {
	replayVerifyClean(t, "leases_before_object_model.db.gz", 13)
}
