package host

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/adapters/illumos"
	"herd/domain"
)

// svcsRunner answers svcs as an illumos host does: what it prints for a
// name, or its complaint about a name it does not know.
type svcsRunner map[string]string

// Run implements illumos.Runner.
func (r svcsRunner) Run(_ context.Context, c illumos.Command) ([]byte, error) {
	name := c.Args[len(c.Args)-1]
	if c.Name != "svcs" {
		return nil, errors.New("not svcs")
	}
	out, ok := r[name]
	if !ok {
		return nil, &illumos.ExitError{Command: c, Code: 1, Stderr: "svcs: Pattern '" + name + "' doesn't match any instances"}
	}
	return []byte(out), nil
}

func TestSMFServices(t *testing.T) {
	run := svcsRunner{
		"ssh":                     "online         svc:/network/ssh:default\n",
		"svc:/system/cron":        "maintenance    svc:/system/cron:default\n",
		"network/physical":        "online         svc:/network/physical:default\ndisabled       svc:/network/physical:nwam\n",
		"system/filesystem/local": "online*        svc:/system/filesystem/local:default\n",
	}
	got, err := NewSMF(run).Services(t.Context(), []string{"ssh", "svc:/system/cron", "network/physical", "system/filesystem/local", "nosuch"})
	if err != nil {
		t.Fatal(err)
	}
	want := []domain.ServiceState{
		{Name: "ssh", Status: domain.ServiceRunning, State: "online"},
		{Name: "svc:/system/cron", Status: domain.ServiceFailed, State: "maintenance"},
		{Name: "network/physical", Status: domain.ServiceFailed, State: "svc:/network/physical:default online, svc:/network/physical:nwam disabled"},
		{Name: "system/filesystem/local", Status: domain.ServiceRunning, State: "online*"},
		{Name: "nosuch", Status: domain.ServiceFailed, State: domain.ServiceNotFound},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("services (-want +got):\n%s", diff)
	}
}

func TestSMFWithoutSvcsIsUnknown(t *testing.T) {
	run := recordedRunner{} // answers nothing: svcs fails, and not about a name
	got, err := NewSMF(run).Services(t.Context(), []string{"ssh"})
	if err == nil {
		t.Error("svcs failing: no error to log")
	}
	if len(got) != 1 || got[0].Status != domain.ServiceUnknown || got[0].Name != "ssh" {
		t.Errorf("services %+v, want ssh Unknown", got)
	}
	if _, err := parseSvcs("ssh", []byte("online\n")); err == nil {
		t.Error("a line without an FMRI: no error")
	}
}
