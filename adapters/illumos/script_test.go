package illumos_test

import (
	"strings"
	"testing"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/adapters/illumos"
	"herd/adapters/illumos/illumostest"
)

// TestRecordedOutputs replays what real hosts answered, failures included.
func TestRecordedOutputs(t *testing.T) {
	p := zonePod("web", nil)
	zone := illumos.ZoneName(p)
	running := "0:global:running:/::ipkg:shared\n12:" + zone + ":running:/rpool/herd/zones/" + zone + ":1b9d-44:sparse:excl:0\n"
	tests := []struct {
		name  string
		steps []illumostest.Step
		run   func(*illumos.Runtime) error
		want  string // in the error; "" for none
	}{
		{
			name:  "zoneadm cannot list",
			steps: []illumostest.Step{{Command: "zoneadm list -cp", Code: 1, Stderr: "zoneadm: could not get zone list: permission denied"}},
			run:   func(rt *illumos.Runtime) error { _, err := rt.State(t.Context(), p); return err },
			want:  "permission denied",
		},
		{
			name:  "zoneadm answers garbage",
			steps: []illumostest.Step{{Command: "zoneadm list -cp", Stdout: "what:is:this\n"}},
			run:   func(rt *illumos.Runtime) error { _, err := rt.State(t.Context(), p); return err },
			want:  "3 fields",
		},
		{
			name: "halt of a running zone",
			steps: []illumostest.Step{
				{Command: "zoneadm list -cp", Stdout: running},
				{Command: "zoneadm -z " + zone + " halt"},
			},
			run: func(rt *illumos.Runtime) error { return rt.Halt(t.Context(), p) },
		},
		{
			name: "halt refused",
			steps: []illumostest.Step{
				{Command: "zoneadm list -cp", Stdout: running},
				{Command: "zoneadm -z " + zone + " halt", Code: 1, Stderr: "zoneadm: zone '" + zone + "': unable to halt: device busy"},
			},
			run:  func(rt *illumos.Runtime) error { return rt.Halt(t.Context(), p) },
			want: "halt zone " + zone + ": zoneadm -z " + zone + " halt: exit status 1: zoneadm: zone '" + zone + "': unable to halt: device busy",
		},
		{
			name: "vnic deletion refused",
			steps: []illumostest.Step{
				{Command: "zoneadm list -cp", Stdout: "0:global:running:/::ipkg:shared\n"},
				{Command: "dladm show-vnic -p -o link", Stdout: illumos.VNICName(p) + "\n"},
				{Command: "dladm delete-vnic " + illumos.VNICName(p), Code: 1, Stderr: "dladm: vnic deletion failed: link busy"},
			},
			run:  func(rt *illumos.Runtime) error { return rt.Deprovision(t.Context(), p) },
			want: "link busy",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rt, err := illumos.New(config(), illumostest.NewScript(t, tt.steps...), clocktesting.NewFakeClock(t0))
			if err != nil {
				t.Fatal(err)
			}
			err = tt.run(rt)
			switch {
			case tt.want == "" && err != nil:
				t.Errorf("error %v", err)
			case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}
