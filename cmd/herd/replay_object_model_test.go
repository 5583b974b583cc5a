package main

import (
	"compress/gzip"
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
	dir := t.TempDir()
	gz, err := os.Open(filepath.Join("testdata", "objects_before_object_model.db.gz"))
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
	if !strings.Contains(stdout, "the live views equal a rebuild of 16 events") {
		t.Errorf("replay --verify says:\n%s%s", stdout, stderr)
	}
}
