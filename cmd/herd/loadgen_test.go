package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestLoadgenRefusesARemoteServer: a --server outside loopback, given as
// a flag or as HERD_SERVER, alone or among several, is refused with a
// message that says why and what to give instead, and nothing is printed
// as a result.
func TestLoadgenRefusesARemoteServer(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  string
	}{
		{"flag", []string{"loadgen", "--server", "http://192.0.2.1:8080", "--nodes", "2"}, ""},
		{"environment", []string{"loadgen", "--nodes", "2"}, "http://192.0.2.1:8080"},
		{"second of two, comma-separated", []string{"loadgen", "--server", "http://127.0.0.1:1,http://192.0.2.1:8080", "--nodes", "2"}, ""},
		{"second of two, repeated", []string{"loadgen", "--server", "http://127.0.0.1:1", "--server", "http://192.0.2.1:8080", "--nodes", "2"}, ""},
		{"second of two in the environment", []string{"loadgen", "--nodes", "2"}, "http://127.0.0.1:1,http://192.0.2.1:8080"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv("HERD_SERVER", tt.env)
			}
			var out, errOut bytes.Buffer
			cmd := newRootCmd()
			cmd.SetOut(&out)
			cmd.SetErr(&errOut)
			cmd.SetArgs(tt.args)
			if err := cmd.Execute(); err == nil {
				t.Fatal("loadgen ran against 192.0.2.1")
			}
			want := "herd: refusing to load a herd that is not on this machine: --server http://192.0.2.1:8080 resolves to 192.0.2.1, outside 127.0.0.0/8 and ::1 (give --allow-remote to load it anyway)\n"
			if errOut.String() != want || out.Len() != 0 {
				t.Errorf("stderr %q, stdout %q; want stderr %q", errOut.String(), out.String(), want)
			}
		})
	}
}

func TestLoadgenNamesAWrongSetting(t *testing.T) {
	var errOut bytes.Buffer
	cmd := newRootCmd()
	cmd.SetErr(&errOut)
	cmd.SetArgs([]string{"loadgen", "--style", "kubelets", "-o", "json"})
	if err := cmd.Execute(); err == nil || !strings.Contains(errOut.String(), `--style "kubelets": want one of [kubelet agent pico]`) {
		t.Errorf("%v: %s", err, errOut.String())
	}
}

// TestLoadgenTakesSeveralServerPIDs: --server-pid is repeatable and takes
// a comma-separated list, each process once.
func TestLoadgenTakesSeveralServerPIDs(t *testing.T) {
	for _, args := range [][]string{
		{"loadgen", "--server-pid", "7,8,7"},
		{"loadgen", "--server-pid", "7", "--server-pid", "8", "--server-pid", "7"},
	} {
		var errOut bytes.Buffer
		cmd := newRootCmd()
		cmd.SetErr(&errOut)
		cmd.SetArgs(args)
		if err := cmd.Execute(); err == nil || !strings.Contains(errOut.String(), "--server-pid 7: given twice") {
			t.Errorf("%v: %v: %s", args, err, errOut.String())
		}
	}
}
