package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// maxTrackedBinary is the largest binary file the repository may hold: a
// test fixture or an image, never a build output (a 31 MB herd binary
// was once committed by accident).
const maxTrackedBinary = 300 << 10

// TestNoBuildOutputIsTracked: every file git tracks is text, or a binary
// small enough to be a fixture. It reads the repository this test runs
// in, so it is skipped where there is no git or no checkout.
func TestNoBuildOutputIsTracked(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not on PATH")
	}
	top, err := exec.CommandContext(t.Context(), git, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skip("not in a git checkout")
	}
	root := string(bytes.TrimSpace(top))
	out, err := exec.CommandContext(t.Context(), git, "-C", root, "ls-files", "-z").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range bytes.Split(bytes.TrimRight(out, "\x00"), []byte{0}) {
		path := filepath.Join(root, string(name))
		info, err := os.Stat(path)
		if err != nil || info.Size() <= maxTrackedBinary {
			continue // deleted in the work tree, or small
		}
		head := make([]byte, 8000)
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := f.Read(head)
		_ = f.Close()
		// git's own test: a NUL in the first 8,000 bytes makes a file binary.
		if bytes.IndexByte(head[:n], 0) >= 0 {
			t.Errorf("%s is a tracked binary of %d bytes: build outputs belong in bin/, which git ignores", name, info.Size())
		}
	}
}
