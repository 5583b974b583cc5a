package main

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestEverythingBuildsForIllumos: herd agent runs on illumos hosts, so
// every package — the agent's, the zone runtime's, kstat's — must keep
// compiling for illumos, as `make illumos` checks too. cgo is off there,
// as it is when cross-compiling.
// crossBuildTimeout bounds the cold cross-build: long, as a hang is all
// it is there to catch; the package's own timeout is longer still.
const crossBuildTimeout = 20 * time.Minute

func TestEverythingBuildsForIllumos(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the whole module: skipped with -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH")
	}
	// A cold cross-build compiles every dependency again, the Kubernetes
	// API types included, beside the rest of the suite: on a new two-core
	// machine it took more than the five minutes of building herd itself.
	ctx, cancel := context.WithTimeout(t.Context(), crossBuildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, goTool, "build", "herd/...")
	cmd.Env = append(childEnv(), "GOOS=illumos", "GOARCH=amd64", "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("GOOS=illumos go build herd/...: %v\n%s", err, strings.TrimSpace(string(out)))
	}
}
