package host

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/adapters/illumos"
	"herd/domain"
)

// recordedRunner answers each command with the output recorded for it,
// as an illumos host answered it.
type recordedRunner map[string]string

var _ illumos.Runner = recordedRunner{}

// Run implements illumos.Runner.
func (r recordedRunner) Run(_ context.Context, c illumos.Command) ([]byte, error) {
	out, ok := r[c.String()]
	if !ok {
		return nil, &illumos.ExitError{Command: c, Code: 1, Stderr: "not recorded"}
	}
	return []byte(out), nil
}

func TestKstatCPUTicks(t *testing.T) {
	run := recordedRunner{cpuTicksCommand.String(): "cpu:0:sys:cpu_ticks_idle\t7000\n" +
		"cpu:0:sys:cpu_ticks_kernel\t2000\ncpu:0:sys:cpu_ticks_user\t1000\ncpu:0:sys:cpu_ticks_wait\t0\n" +
		"cpu:1:sys:cpu_ticks_idle\t9000\ncpu:1:sys:cpu_ticks_kernel\t500\ncpu:1:sys:cpu_ticks_user\t500\ncpu:1:sys:cpu_ticks_wait\t0\n"}
	busy, all, err := kstatCPUTicks(t.Context(), run)
	if err != nil {
		t.Fatal(err)
	}
	if busy != 4000 || all != 20000 {
		t.Errorf("busy %v of %v ticks, want 4000 of 20000", busy, all)
	}
	if _, _, err := kstatCPUTicks(t.Context(), recordedRunner{cpuTicksCommand.String(): "cpu:0:sys:cpu_ticks_idle\tlots\n"}); err == nil {
		t.Error("a tick count that is no number: no error")
	}
	if _, _, err := kstatCPUTicks(t.Context(), recordedRunner{cpuTicksCommand.String(): ""}); err == nil {
		t.Error("no ticks at all: no error")
	}
}

func TestDladmLinks(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want []domain.NetworkLink
	}{
		{
			name: "physical links count alone, zones' VNICs and the etherstub do not",
			out:  "net0:phys:up\nnet1:phys:down\nherd0:etherstub:unknown\nweb_1_0:vnic:up\n",
			want: []domain.NetworkLink{{Name: "net0", State: "up", Up: true}, {Name: "net1", State: "down"}},
		},
		{
			name: "an aggregation counts as physical",
			out:  "aggr0:aggr:down\nnet0:phys:down\n",
			want: []domain.NetworkLink{{Name: "aggr0", State: "down"}, {Name: "net0", State: "down"}},
		},
		{
			name: "a host with VNICs only reports them",
			out:  "vnic0:vnic:up\nstub0:etherstub:unknown\n",
			want: []domain.NetworkLink{{Name: "vnic0", State: "up", Up: true}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := dladmLinks(t.Context(), recordedRunner{linksCommand.String(): tc.out})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("links (-want +got):\n%s", diff)
			}
		})
	}
	_, err := dladmLinks(t.Context(), recordedRunner{linksCommand.String(): "net0 phys up\n"})
	if err == nil || err.Error() != `dladm show-link line 1 "net0 phys up": want link:class:state` {
		t.Errorf("a line that is not link:class:state: error %v", err)
	}
	var exit *illumos.ExitError
	if _, err := dladmLinks(t.Context(), recordedRunner{}); !errors.As(err, &exit) {
		t.Errorf("dladm failing: error %v, want its exit", err)
	}
}
