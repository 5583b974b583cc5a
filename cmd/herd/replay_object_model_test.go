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

// TestReplayVerifyOnWorkloadsWrittenBeforeTheObjectModel: a data
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
func TestReplayVerifyOnWorkloadsWrittenBeforeTheObjectModel(t *testing.T) {
	replayVerifyClean(t, "workloads_before_object_model.db.gz", 28)
}

// replayVerifyClean runs `herd replay --verify` on a copy of the gzipped
// data directory file in testdata and expects no difference over its
// count events.
func replayVerifyClean(t *testing.T, file string, count int) {
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
	if !strings.Contains(stdout, fmt.Sprintf("the live views equal a rebuild of %d events", count)) {
		t.Errorf("replay --verify says:\n%s%s", stdout, stderr)
	}
}
