package illumos

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseZoneList(t *testing.T) {
	out := strings.Join([]string{
		"0:global:running:/::ipkg:shared",
		"-:web:configured:/zones/web::sparse:excl",
		"-:half:incomplete:/zones/half:6f1c0e2a-1b2c-4d5e-8f90-123456789abc:lx:excl",
		"-:idle:installed:/zones/idle:uuid-3:sparse:excl",
		"4:booting:ready:/zones/booting:uuid-4:sparse:excl",
		"5:db:running:/zones/a\\:b\\\\c:uuid-5:lx:excl:0",
		"6:leaving:shutting_down:/zones/leaving:uuid-6:pkgsrc:excl",
		"7:gone:down:/zones/gone:uuid-7:sparse:shared",
		"",
	}, "\n")
	got, err := ParseZoneList([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []Zone{
		{ID: -1, Name: "web", State: ZoneConfigured, Path: "/zones/web", Brand: "sparse", IPType: "excl"},
		{ID: -1, Name: "half", State: ZoneIncomplete, Path: "/zones/half", UUID: "6f1c0e2a-1b2c-4d5e-8f90-123456789abc", Brand: "lx", IPType: "excl"},
		{ID: -1, Name: "idle", State: ZoneInstalled, Path: "/zones/idle", UUID: "uuid-3", Brand: "sparse", IPType: "excl"},
		{ID: 4, Name: "booting", State: ZoneReady, Path: "/zones/booting", UUID: "uuid-4", Brand: "sparse", IPType: "excl"},
		{ID: 5, Name: "db", State: ZoneRunning, Path: `/zones/a:b\c`, UUID: "uuid-5", Brand: "lx", IPType: "excl"},
		{ID: 6, Name: "leaving", State: ZoneShuttingDown, Path: "/zones/leaving", UUID: "uuid-6", Brand: "pkgsrc", IPType: "excl"},
		{ID: 7, Name: "gone", State: ZoneDown, Path: "/zones/gone", UUID: "uuid-7", Brand: "sparse", IPType: "shared"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("zones (-want +got):\n%s", diff)
	}
	if got, err := ParseZoneList(nil); err != nil || len(got) != 0 {
		t.Errorf("empty output: %v %v", got, err)
	}
}

func TestParseZoneListRejectsWhatItCannotRead(t *testing.T) {
	tests := []struct {
		name, out, want string
	}{
		{"too few fields", "-:web:installed:/zones/web", "4 fields"},
		{"unknown state", "-:web:mounted:/zones/web:u:sparse:excl", `unknown state "mounted"`},
		{"bad id", "x:web:running:/zones/web:u:sparse:excl", `zone id "x"`},
		{"lone backslash", "-:web:installed:/zones/web:u:sparse:excl\\", "lone backslash"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ParseZoneList([]byte(tt.out)); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

func TestEscapeParsableRoundTrips(t *testing.T) {
	for _, s := range []string{"/zones/plain", `/odd:path\with:colons`, `\`, ":"} {
		f, err := splitParsable("a:" + escapeParsable(s) + ":b")
		if err != nil || len(f) != 3 || f[1] != s {
			t.Errorf("%q: fields %q %v", s, f, err)
		}
	}
}

// escapeParsable escapes a field for parsable output, as zoneadm does.
func escapeParsable(s string) string {
	return strings.NewReplacer(`\`, `\\`, ":", `\:`).Replace(s)
}
