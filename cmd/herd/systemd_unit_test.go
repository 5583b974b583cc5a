package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// unitFile is the systemd unit shipped for herd serve.
const unitFile = "systemd/herd.service"

// TestSystemdUnitIsValid: systemd-analyze verify accepts the shipped unit
// (with ExecStart pointed at a herd built from this tree, for it checks
// that the binary is there), and every flag the unit gives herd serve is
// one herd serve has. Without systemd-analyze it skips, unless
// HERD_REQUIRE_SYSTEMD=1 (make unit, after make deps installed systemd).
func TestSystemdUnitIsValid(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		if os.Getenv("HERD_REQUIRE_SYSTEMD") == "1" {
			t.Fatal("systemd-analyze is not on PATH, and HERD_REQUIRE_SYSTEMD=1: make deps installs the systemd package")
		}
		t.Skip("systemd-analyze is not on PATH (make deps installs it)")
	}
	t.Parallel()
	unit := string(readFile(t, unitFile))
	const installed = "/usr/local/bin/herd"
	args := execStart(t, unit)
	if len(args) < 2 || args[0] != installed || args[1] != "serve" {
		t.Fatalf("ExecStart is %q, want %s serve ...", args, installed)
	}

	copyPath := filepath.Join(t.TempDir(), "herd.service")
	writeFile(t, copyPath, []byte(strings.ReplaceAll(unit, installed, herdBinary(t))))
	res := run(t, childEnv(), analyze, "verify", copyPath)
	if res.Code != 0 || strings.Contains(res.Stderr, "herd.service") {
		t.Errorf("systemd-analyze verify %s: exit %d\n%s%s", unitFile, res.Code, res.Stdout, res.Stderr)
	}

	help := mustHerd(t, "serve", "--help").Stdout
	flags := 0
	for _, arg := range args[2:] {
		name, _, _ := strings.Cut(arg, "=")
		if !strings.HasPrefix(name, "--") {
			t.Errorf("ExecStart argument %q: want --flag=value", arg)
			continue
		}
		flags++
		if !regexp.MustCompile(`(?m)^\s+(-\w, )?` + regexp.QuoteMeta(name) + `\b`).MatchString(help) {
			t.Errorf("the unit gives herd serve %s, which herd serve --help does not list", name)
		}
	}
	if flags == 0 {
		t.Error("the unit gives herd serve no flags")
	}
}

// execStart is the unit's ExecStart command line, split into arguments
// (continuation lines joined).
func execStart(t *testing.T, unit string) []string {
	t.Helper()
	joined := strings.ReplaceAll(unit, "\\\n", " ")
	for line := range strings.SplitSeq(joined, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "ExecStart="); ok {
			return strings.Fields(v)
		}
	}
	t.Fatalf("%s has no ExecStart", unitFile)
	return nil
}
