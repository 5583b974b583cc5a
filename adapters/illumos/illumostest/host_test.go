package illumostest

import (
	"context"
	"errors"
	"strings"
	"testing"

	"herd/adapters/illumos"
)

// TestHostRefusesWhatTheRealCommandsRefuse: the runtime's tests lean on
// these refusals to prove it never makes anything twice.
func TestHostRefusesWhatTheRealCommandsRefuse(t *testing.T) {
	const file = "create -b\nset brand=sparse\nset zonepath=/rpool/z1\nadd net\nset physical=vnic1\nend\ncommit\n"
	setup := []illumos.Command{
		{Name: "zfs", Args: []string{"create", "rpool/z1"}},
		{Name: "dladm", Args: []string{"create-vnic", "-l", "e1000g0", "vnic1"}},
		{Name: "zonecfg", Args: []string{"-z", "z1", "-f", "/dev/stdin"}, Stdin: file},
	}
	tests := []struct {
		name string
		cmd  illumos.Command
		want string
	}{
		{"second VNIC of a name", illumos.Command{Name: "dladm", Args: []string{"create-vnic", "-l", "e1000g0", "vnic1"}}, "already exists"},
		{"VNIC with a bad name", illumos.Command{Name: "dladm", Args: []string{"create-vnic", "-l", "e1000g0", "vnic01"}}, "leading zero"},
		{"second zone of a name", illumos.Command{Name: "zonecfg", Args: []string{"-z", "z1", "-f", "/dev/stdin"}, Stdin: file}, "already exists"},
		{"install without chmod", illumos.Command{Name: "zoneadm", Args: []string{"-z", "z1", "install"}}, "must not be group readable"},
		{"boot before install", illumos.Command{Name: "zoneadm", Args: []string{"-z", "z1", "boot"}}, "invalid for configured zones"},
		{"dataset twice", illumos.Command{Name: "zfs", Args: []string{"create", "rpool/z1"}}, "already exists"},
		{"dataset without parent", illumos.Command{Name: "zfs", Args: []string{"create", "rpool/a/b"}}, "parent does not exist"},
		{"destroy what is not there", illumos.Command{Name: "zfs", Args: []string{"destroy", "-r", "rpool/nope"}}, "does not exist"},
		{"unknown zone", illumos.Command{Name: "zoneadm", Args: []string{"-z", "nope", "halt"}}, "No such zone configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := NewHost()
			for _, c := range setup {
				if _, err := h.Run(t.Context(), c); err != nil {
					t.Fatal(err)
				}
			}
			_, err := h.Run(t.Context(), tt.cmd)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: error %v, want one saying %q", tt.cmd, err, tt.want)
			}
		})
	}
}

func TestHostZoneLifecycle(t *testing.T) {
	h := NewHost()
	run := func(name string, args ...string) {
		t.Helper()
		if _, err := h.Run(t.Context(), illumos.Command{Name: name, Args: args}); err != nil {
			t.Fatal(err)
		}
	}
	run("zfs", "create", "rpool/z1")
	run("chmod", "700", "/rpool/z1")
	run("dladm", "create-vnic", "-l", "e1000g0", "vnic1")
	if _, err := h.Run(t.Context(), illumos.Command{Name: "zonecfg", Args: []string{"-z", "z1", "-f", "/dev/stdin"},
		Stdin: "create -b\nset brand=sparse\nset zonepath=/rpool/z1\nadd net\nset physical=vnic1\nend\ncommit\n"}); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct{ sub, state string }{
		{"install", "installed"}, {"boot", "running"}, {"shutdown", "installed"}, {"boot", "running"}, {"halt", "installed"}, {"uninstall", "configured"},
	} {
		args := []string{"-z", "z1", step.sub}
		if step.sub == "uninstall" {
			args = append(args, "-F")
		}
		run("zoneadm", args...)
		if got, _ := h.ZoneState("z1"); got != step.state {
			t.Fatalf("after %s: %s, want %s", step.sub, got, step.state)
		}
	}
	out, err := h.Run(t.Context(), illumos.Command{Name: "zoneadm", Args: []string{"list", "-cp"}})
	if err != nil {
		t.Fatal(err)
	}
	zones, err := illumos.ParseZoneList(out)
	if err != nil || len(zones) != 1 || zones[0].Path != "/rpool/z1" || zones[0].State != illumos.ZoneConfigured {
		t.Errorf("zone list %+v %v", zones, err)
	}
	run("zonecfg", "-z", "z1", "delete", "-F")
	if names := h.ZoneNames(); len(names) != 0 {
		t.Errorf("zones %v after delete", names)
	}
}

func TestAZoneThatIgnoresShutdownAndACommandThatHangs(t *testing.T) {
	h := NewHost()
	run := func(name string, args ...string) error {
		t.Helper()
		_, err := h.Run(t.Context(), illumos.Command{Name: name, Args: args})
		return err
	}
	for _, c := range [][]string{{"zfs", "create", "rpool/z1"}, {"chmod", "700", "/rpool/z1"}} {
		if err := run(c[0], c[1:]...); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := h.Run(t.Context(), illumos.Command{Name: "zonecfg", Args: []string{"-z", "z1", "-f", "/dev/stdin"},
		Stdin: "create -b\nset brand=sparse\nset zonepath=/rpool/z1\ncommit\n"}); err != nil {
		t.Fatal(err)
	}
	// herd goes down in the middle of the install.
	hang := h.HangNext("zoneadm -z z1 install")
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := h.Run(ctx, illumos.Command{Name: "zoneadm", Args: []string{"-z", "z1", "install"}})
		done <- err
	}()
	<-hang.Reached()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("the hung install ended with %v", err)
	}
	if got, _ := h.ZoneState("z1"); got != "incomplete" {
		t.Errorf("after the interrupted install: %s", got)
	}
	for _, c := range [][]string{{"zoneadm", "-z", "z1", "uninstall", "-F"}, {"zoneadm", "-z", "z1", "install"}, {"zoneadm", "-z", "z1", "boot"}} {
		if err := run(c[0], c[1:]...); err != nil {
			t.Fatal(err)
		}
	}
	h.IgnoreShutdown("z1")
	if err := run("zoneadm", "-z", "z1", "shutdown"); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.ZoneState("z1"); got != "shutting_down" {
		t.Errorf("a zone that ignores shutdown: %s", got)
	}
	if err := run("zoneadm", "-z", "z1", "halt"); err != nil {
		t.Fatal(err)
	}
	if got, _ := h.ZoneState("z1"); got != "installed" {
		t.Errorf("after the halt: %s", got)
	}
}
