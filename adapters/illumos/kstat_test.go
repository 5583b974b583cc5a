package illumos_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/adapters/illumos"
	"herd/adapters/illumos/illumostest"
	"herd/domain"
)

const metricsKstat = "kstat -p unix:0:system_misc:ncpus unix:0:system_misc:avenrun_1min unix:0:system_misc:avenrun_5min " +
	"unix:0:system_misc:avenrun_15min unix:0:system_pages:physmem unix:0:system_pages:freemem unix:0:system_misc:nproc " +
	"unix:0:var:v_proc zfs:0:arcstats:size zfs:0:arcstats:c_min"

// recorded is what `kstat -p` printed on an 8-core OmniOS host with 16 GiB.
const recorded = "unix:0:system_misc:ncpus\t8\n" +
	"unix:0:system_misc:avenrun_1min\t384\n" +
	"unix:0:system_misc:avenrun_5min\t256\n" +
	"unix:0:system_misc:avenrun_15min\t64\n" +
	"unix:0:system_pages:physmem\t4194304\n" +
	"unix:0:system_pages:freemem\t1048576\n" +
	"unix:0:system_misc:nproc\t212\n" +
	"unix:0:var:v_proc\t30000\n" +
	"zfs:0:arcstats:size\t3221225472\n" +
	"zfs:0:arcstats:c_min\t1073741824\n"

func TestKstatMetrics(t *testing.T) {
	k := illumos.NewKstat(illumostest.NewScript(t,
		illumostest.Step{Command: metricsKstat, Stdout: recorded},
		illumostest.Step{Command: "zfs list -Hp -o used,available rpool", Stdout: "107374182400\t322122547200\n"},
	), "rpool", 4096)
	got, err := k.Metrics(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := domain.Metrics{
		CPUCount: 8, Load1: 1.5, Load5: 1, Load15: 0.25,
		MemoryTotalBytes: 16 << 30, MemoryAvailableBytes: 4<<30 + 2<<30,
		DiskTotalBytes: 400 << 30, DiskAvailableBytes: 300 << 30,
		PIDsMax: 30000, PIDsCurrent: 212,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metrics (-want +got):\n%s", diff)
	}
}

func TestKstatFacts(t *testing.T) {
	k := illumos.NewKstat(illumostest.NewScript(t, illumostest.Step{
		Command: "kstat -p unix:0:system_misc:ncpus unix:0:system_pages:physmem unix:0:system_misc:boot_time",
		Stdout:  "unix:0:system_misc:ncpus\t8\nunix:0:system_pages:physmem\t4194304\nunix:0:system_misc:boot_time\t1772355600\n",
	}), "rpool", 4096)
	cpus, mem, boot, err := k.Facts(t.Context())
	if err != nil || cpus != 8 || mem != 16<<30 || boot != 1772355600 {
		t.Errorf("facts %d CPUs, %d bytes, boot %d, %v", cpus, mem, boot, err)
	}
}

func TestKstatRefusesWhatItCannotRead(t *testing.T) {
	tests := []struct {
		name  string
		steps []illumostest.Step
		want  string
	}{
		{"statistic missing", []illumostest.Step{{Command: metricsKstat, Stdout: "unix:0:system_misc:ncpus\t8\n"}}, "no unix:0:system_misc:avenrun_1min"},
		{"not a number", []illumostest.Step{{Command: metricsKstat, Stdout: strings.Replace(recorded, "\t212", "\tmany", 1)}}, `unix:0:system_misc:nproc = "many"`},
		{"not kstat", []illumostest.Step{{Command: metricsKstat, Stdout: "hello\n"}}, "want module:instance:name:statistic"},
		{"kstat fails", []illumostest.Step{{Command: metricsKstat, Code: 1, Stderr: "kstat: permission denied"}}, "permission denied"},
		{"zfs answers oddly", []illumostest.Step{{Command: metricsKstat, Stdout: recorded}, {Command: "zfs list -Hp -o used,available rpool", Stdout: "1\n"}}, "want used and available"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := illumos.NewKstat(illumostest.NewScript(t, tt.steps...), "rpool", 4096).Metrics(t.Context())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}
