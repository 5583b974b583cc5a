package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
	"herd/projections"
	"herd/reconcilers"
)

// runHerd runs herd with args in this process, as main would.
func runHerd(t *testing.T, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := newRootCmd()
	cmd.SetOut(&out)
	cmd.SetErr(&errOut)
	cmd.SetArgs(args)
	err = cmd.ExecuteContext(t.Context())
	return out.String(), errOut.String(), err
}

// writeFleet writes a SQLite log of a small fleet in dir, through the
// writer and domain commands as herd serve does: nodes of several kinds
// with their heartbeats and lease renewals over fifteen minutes, pods bound
// to them, a ConfigMap, a taint, a deleted node; then retention deletes
// the superseded heartbeats older than eight minutes, leaving gaps. It
// returns the file's path.
func writeFleet(t *testing.T, dir string) string {
	t.Helper()
	ctx := t.Context()
	path := filepath.Join(dir, events.DatabaseFileName)
	store, err := events.Open(ctx, events.Config{Path: path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = store.Close() }()
	if err := projections.Migrate(ctx, store.Log()); err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	w := projections.NewWriter(store.Log(), clk, nil)
	node := func(name string, cmd domain.NodeCommand) {
		t.Helper()
		if _, err := w.NodeCommands().Execute(ctx, domain.Key{Name: name}, cmd); err != nil {
			t.Fatalf("%T on %s: %v", cmd, name, err)
		}
	}
	pod := func(name string, cmd domain.PodCommand) {
		t.Helper()
		if _, err := w.PodCommands().Execute(ctx, domain.Key{Namespace: "default", Name: name}, cmd); err != nil {
			t.Fatalf("%T on %s: %v", cmd, name, err)
		}
	}
	renew := func(name string) {
		t.Helper()
		d, now := int32(40), clk.Now()
		content := domain.LeaseContent{Spec: domain.LeaseSpec{HolderIdentity: name, LeaseDurationSeconds: &d, RenewTime: &now}}
		if _, err := w.LeaseCommands().Execute(ctx, domain.Key{Namespace: domain.NodeLeaseNamespace, Name: name},
			domain.From[domain.Lease, domain.LeaseCommand](func(l domain.Lease) (domain.LeaseCommand, error) {
				if !l.Exists() {
					return domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: name, Content: content}, nil
				}
				return domain.UpdateLease{Content: content}, nil
			})); err != nil {
			t.Fatal(err)
		}
	}

	kinds := map[string]domain.NodeKind{"kube-1": domain.KindKubelet, "zone-1": domain.KindIllumos, "pico-1": domain.KindRP2040, "lin-1": domain.KindLinux, "lin-2": domain.KindLinux}
	for name, kind := range kinds {
		node(name, domain.RegisterNode{Registration: domain.Registration{Name: name, UID: "uid-" + name, Kind: kind,
			Labels: map[string]string{"zone": "a"}, Capacity: domain.ResourceList{"cpu": 4000, "memory": 8 << 30, "pods": 10}}})
	}
	for i := range 5 {
		name := fmt.Sprintf("web-%d", i)
		pod(name, domain.CreatePod{Namespace: "default", Name: name, UID: "uid-" + name, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c"}}}})
		pod(name, domain.BindPod{NodeName: []string{"zone-1", "lin-1"}[i%2]})
	}
	if _, err := w.ConfigMapCommands().Execute(ctx, domain.Key{Namespace: "default", Name: "settings"},
		domain.CreateConfigMap{Meta: domain.ObjectMeta{Namespace: "default", Name: "settings", UID: "uid-settings"}, Spec: domain.ConfigMapSpec{Data: map[string]string{"k": "v"}}}); err != nil {
		t.Fatal(err)
	}
	for i := range 90 { // fifteen minutes at 10 s
		clk.Step(10 * time.Second)
		renew("kube-1")
		for _, name := range []string{"zone-1", "lin-1", "lin-2"}[:3-i/41] { // lin-2 is deleted at 40
			node(name, domain.RecordHeartbeat{Metrics: &domain.Metrics{CPUCount: 4, Load1: float64(i % 3),
				MemoryTotalBytes: 1000, MemoryAvailableBytes: 500, DiskTotalBytes: 1000, DiskAvailableBytes: 500, PIDsMax: 1000, PIDsCurrent: 10}})
		}
		node("pico-1", domain.RecordHeartbeat{})
		switch i {
		case 20:
			node("lin-2", domain.TaintNode{Taint: domain.Taint{Key: "maintenance", Effect: domain.EffectNoSchedule}})
		case 40:
			node("lin-2", domain.DeleteNode{})
		}
	}
	c, err := projections.NewCompactor(w, projections.CompactionConfig{Retention: 8 * time.Minute}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if stats, err := c.Compact(ctx); err != nil || stats.Deleted == 0 {
		t.Fatalf("retention deleted %d events (%v); the test wants gaps", stats.Deleted, err)
	}
	return path
}

// fleetViews is what the views answer: the lists a client sees.
type fleetViews struct {
	Nodes      []domain.Node
	Pods       []domain.Pod
	Leases     []domain.Lease
	ConfigMaps []domain.ConfigMap
	RVs        [4]int64
}

func readViews(t *testing.T, log events.Log) fleetViews {
	t.Helper()
	ctx := t.Context()
	var v fleetViews
	var errs [4]error
	v.Nodes, v.RVs[0], errs[0] = projections.NewNodeView(log).List(ctx)
	v.Pods, v.RVs[1], errs[1] = projections.NewPodView(log).List(ctx, projections.PodFilter{})
	v.Leases, v.RVs[2], errs[2] = projections.NewLeaseView(log).List(ctx, "")
	v.ConfigMaps, v.RVs[3], errs[3] = projections.NewConfigMapView(log).List(ctx, "")
	if err := errors.Join(errs[:]...); err != nil {
		t.Fatal(err)
	}
	if len(v.Nodes) != 4 || len(v.Pods) != 5 || len(v.Leases) != 1 || len(v.ConfigMaps) != 1 {
		t.Fatalf("%d nodes, %d pods, %d leases, %d ConfigMaps; want 4, 5, 1, 1", len(v.Nodes), len(v.Pods), len(v.Leases), len(v.ConfigMaps))
	}
	return v
}

// TestMigrateMovesTheFleetToPostgres runs herd migrate on a SQLite data
// directory: every event arrives at its position, the views on
// PostgreSQL answer as those on SQLite did, and herd appends after the
// copied head. A second migrate into the same database is refused and
// changes nothing.
func TestMigrateMovesTheFleetToPostgres(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := writeFleet(t, dir)
	url := pgtest.URL(t)
	// The reconcilers of the herd that served this log had handled it
	// up to position 100.
	const handled = 100
	saveGroupPosition(t, path, reconcilers.ConsumerGroup, handled)

	stdout, stderr, err := runHerd(t, "migrate", "--from", "sqlite://"+path, "--to", url)
	if err != nil {
		t.Fatalf("migrate: %v\nstdout:\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^copied \d+ events up to position \d+ from sqlite://` + regexp.QuoteMeta(path) + ` to postgres://`),
		regexp.MustCompile(`(?m)^copied where the reconcilers stood in the log: position 100$`),
		regexp.MustCompile(`(?m)^copied the compaction point, position \d+ \(retention deleted \d+ `),
		regexp.MustCompile(`(?m)^rebuilt the views from \d+ events up to position \d+`),
		regexp.MustCompile(`(?m)^the live views equal a rebuild of \d+ events up to position \d+`),
	} {
		if !want.MatchString(stdout) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	if stderr != "" {
		t.Errorf("stderr off a terminal: %q, want nothing", stderr)
	}

	src, err := events.Open(ctx, events.Config{Path: path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = src.Close() }()
	dst, err := events.OpenPostgres(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = dst.Close() }()

	srcRecs := eventstest.SameRecords(t, src.Log(), dst)
	head, err := src.Log().Head(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := int64(len(srcRecs)); n < 200 || n == head {
		t.Errorf("%d events up to head %d: want a few hundred, with gaps", n, head)
	}
	if got, err := dst.Head(ctx); err != nil || got != head {
		t.Errorf("head on PostgreSQL %d (%v), want %d", got, err, head)
	}
	if want := src.Compaction(); want.Through == 0 || dst.Compaction() != want {
		t.Errorf("compaction on PostgreSQL %+v, want SQLite's %+v", dst.Compaction(), want)
	}
	if want := fmt.Sprintf("copied %d events up to position %d ", len(srcRecs), head); !strings.Contains(stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, stdout)
	}
	if pos, err := dst.GroupPosition(ctx, reconcilers.ConsumerGroup, ""); err != nil || pos != handled {
		t.Errorf("the reconcilers stand at %d on PostgreSQL (%v), want %d as on SQLite", pos, err, handled)
	}
	if diff := cmp.Diff(readViews(t, src.Log()), readViews(t, dst)); diff != "" {
		t.Errorf("views (-SQLite +PostgreSQL):\n%s", diff)
	}
	if diff, _, err := projections.VerifyInPlace(ctx, dst, projections.RebuildOptions{}); err != nil || diff != nil {
		t.Errorf("verify on PostgreSQL: %v, %v", diff, err)
	}

	// herd on PostgreSQL appends after the copied head.
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC))
	n, err := projections.NewWriter(dst, clk, nil).NodeCommands().Execute(ctx, domain.Key{Name: "lin-1"}, domain.RecordHeartbeat{})
	if err != nil {
		t.Fatal(err)
	}
	if n.ResourceVersion != head+1 {
		t.Errorf("first heartbeat after the migration at resourceVersion %d, want %d", n.ResourceVersion, head+1)
	}

	// A second migrate is refused, names the reason, and changes nothing.
	before, err := dst.ReadAfter(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err = runHerd(t, "migrate", "--from", "sqlite://"+path, "--to", url)
	if !errors.Is(err, events.ErrLogNotEmpty) {
		t.Fatalf("second migrate: %v, want ErrLogNotEmpty", err)
	}
	if !strings.Contains(stderr, "the target already holds an event log (head at position "+fmt.Sprint(head+1)+")") ||
		!strings.Contains(stderr, "nothing was copied") || stdout != "" {
		t.Errorf("second migrate said\nstdout: %q\nstderr: %q", stdout, stderr)
	}
	after, err := dst.ReadAfter(ctx, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("a refused migrate changed the log (-before +after):\n%s", diff)
	}
}

// TestMigrateRefusesWhileHerdServes: the data directory's lock keeps a
// migrate off a log that herd serve is writing.
func TestMigrateRefusesWhileHerdServes(t *testing.T) {
	dir := t.TempDir()
	path := writeFleet(t, dir)
	lock, err := events.LockDataDir(dir, "herd serve")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = lock.Release() }()
	url := pgtest.URL(t)
	_, stderr, err := runHerd(t, "migrate", "--from", "sqlite://"+path, "--to", url)
	if _, ok := errors.AsType[*events.LockedError](err); !ok || !strings.Contains(stderr, "herd serve") || !strings.Contains(stderr, "stop it first") {
		t.Fatalf("migrate while serving: %v\n%s", err, stderr)
	}
	dst, err := events.OpenPostgres(context.WithoutCancel(t.Context()), url)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = dst.Close() }()
	if head, err := dst.Head(t.Context()); err != nil || head != 0 {
		t.Errorf("head %d (%v) after a refused migrate, want 0", head, err)
	}
}

// TestMigrateNamesABadFlag: --from must be a SQLite file that exists,
// --to a PostgreSQL database; a mistake in either is named before
// anything is opened, with the configuration error's exit status.
func TestMigrateNamesABadFlag(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		args     []string
		want     string
		exitCode int
	}{
		{"no --from", []string{"--to", "postgres://localhost/herd"}, "--from is required: want the SQLite log to copy, sqlite:///path/to/herd.db", exitConfig},
		{"no --to", []string{"--from", "sqlite:///old/herd.db"}, "--to is required: want the PostgreSQL database to copy it into", exitConfig},
		{"neither", nil, "--from is required", exitConfig},
		{"--from on PostgreSQL", []string{"--from", "postgres://u:secret@localhost/a", "--to", "postgres://localhost/b"},
			"--from postgres://u:xxxxx@localhost/a is PostgreSQL: want the SQLite log to copy", exitConfig},
		{"--from a bare path", []string{"--from", "/old/herd.db", "--to", "postgres://localhost/b"},
			`--from "/old/herd.db": want the SQLite log to copy, sqlite:///path/to/herd.db`, exitConfig},
		{"--to on SQLite", []string{"--from", "sqlite:///old/herd.db", "--to", "sqlite:///new/herd.db"},
			"--to sqlite:///new/herd.db is SQLite: want the PostgreSQL database", exitConfig},
		{"no log at --from", []string{"--from", "sqlite://" + filepath.Join(dir, "herd.db"), "--to", "postgres://localhost/b"},
			"--from sqlite://" + filepath.Join(dir, "herd.db") + ": no event log there", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, err := runHerd(t, append([]string{"migrate"}, tt.args...)...)
			if err == nil || !strings.Contains(stderr, tt.want) || stdout != "" {
				t.Fatalf("got %v\nstdout: %q\nstderr: %q\nwant stderr with %q", err, stdout, stderr, tt.want)
			}
			if got := exitCode(err); got != tt.exitCode {
				t.Errorf("exit status %d, want %d", got, tt.exitCode)
			}
			if strings.Contains(stderr, "secret") {
				t.Errorf("stderr shows the password: %q", stderr)
			}
		})
	}
}

// TestMigrateNamesAnUnreachableTarget: a --to where no PostgreSQL
// answers is named, and the SQLite log is left as it was, unlocked.
func TestMigrateNamesAnUnreachableTarget(t *testing.T) {
	dir := t.TempDir()
	path := writeFleet(t, dir)
	// Port 1 on loopback: nothing listens, the connection is refused at once.
	_, stderr, err := runHerd(t, "migrate", "--from", "sqlite://"+path, "--to", "postgres://herd@127.0.0.1:1/herd?sslmode=disable")
	if err == nil || !strings.Contains(stderr, "herd: --to postgres://herd@127.0.0.1:1/herd?sslmode=disable: ") || !strings.Contains(stderr, "connection refused") {
		t.Fatalf("migrate to a closed port: %v\n%s", err, stderr)
	}
	lock, err := events.LockDataDir(dir, "test")
	if err != nil {
		t.Fatalf("the data directory is still locked after a failed migrate: %v", err)
	}
	_ = lock.Release()
}

func TestCopyProgressLine(t *testing.T) {
	tests := []struct {
		name        string
		done, total int64
		elapsed     time.Duration
		want        string
	}{
		{"half way", 50000, 100000, time.Second, "copying: 50,000/100,000 events (50%), 50,000 events/s, 1s left"},
		{"every event copied", 100000, 100000, 2 * time.Second, "copied 100,000 events in 2s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := copyWords.line(tt.done, tt.total, tt.elapsed); got != tt.want {
				t.Errorf("copyWords.line(%d, %d, %s) = %q, want %q", tt.done, tt.total, tt.elapsed, got, tt.want)
			}
		})
	}
}

// saveGroupPosition records in the SQLite log at path that group has
// handled it up to pos, as a herd serve's dispatcher does.
func saveGroupPosition(t *testing.T, path, group string, pos int64) {
	t.Helper()
	store, err := events.Open(t.Context(), events.Config{Path: path}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = store.Close() }()
	if err := store.Log().SaveGroupPosition(t.Context(), group, pos); err != nil {
		t.Fatal(err)
	}
}
