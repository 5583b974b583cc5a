package kubelet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
)

func TestConfigTargets(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "kubelets.yaml")
	if err := os.WriteFile(file, []byte(`
defaults:
  caFile: pki/kubelet-ca.pem
  bearerTokenFile: /var/run/secrets/herd/token
targets:
  - name: worker-1
    url: https://10.0.0.11:10250
  - name: worker-2
    url: https://10.0.0.12:10250
    clientCertFile: pki/herd.pem
    clientKeyFile: pki/herd-key.pem
    insecureSkipVerify: false
  - name: lab-1
    url: http://10.0.0.13:10255
`), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Flags = []string{"edge-1=https://192.168.1.20:10250", "edge-2=http://192.168.1.21:10255"}
	cfg.Defaults = TargetDefaults{CAFile: "/etc/herd/ca.pem", BearerTokenFile: "/etc/herd/token", InsecureSkipVerify: true}
	cfg.File = file
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	got, err := cfg.Targets()
	if err != nil {
		t.Fatal(err)
	}
	want := []domain.KubeletTarget{
		{Name: "edge-1", URL: "https://192.168.1.20:10250", CAFile: "/etc/herd/ca.pem", BearerTokenFile: "/etc/herd/token", InsecureSkipVerify: true, Source: domain.SourceConfig},
		{Name: "edge-2", URL: "http://192.168.1.21:10255", BearerTokenFile: "/etc/herd/token", Source: domain.SourceConfig},
		{Name: "worker-1", URL: "https://10.0.0.11:10250", CAFile: filepath.Join(dir, "pki/kubelet-ca.pem"), BearerTokenFile: "/var/run/secrets/herd/token", Source: domain.SourceConfig},
		{Name: "worker-2", URL: "https://10.0.0.12:10250", CAFile: filepath.Join(dir, "pki/kubelet-ca.pem"),
			ClientCertFile: filepath.Join(dir, "pki/herd.pem"), ClientKeyFile: filepath.Join(dir, "pki/herd-key.pem"),
			BearerTokenFile: "/var/run/secrets/herd/token", Source: domain.SourceConfig},
		{Name: "lab-1", URL: "http://10.0.0.13:10255", BearerTokenFile: "/var/run/secrets/herd/token", Source: domain.SourceConfig},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
}

func TestConfigValidateNamesEveryProblem(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tests := []struct {
		name   string
		change func(*Config)
		want   []string
	}{
		{"defaults are fine", func(*Config) {}, nil},
		{"intervals", func(c *Config) { c.StatsInterval, c.Interval, c.Timeout, c.MaxBackoff = 0, -time.Second, 0, 0 }, []string{
			"--kubelet-stats-interval 0s: want a positive duration",
			"--kubelet-poll-interval -1s: want a positive duration",
			"--kubelet-timeout 0s: want a positive duration",
			"--kubelet-max-backoff 0s: want a positive duration",
		}},
		{"signal thresholds", func(c *Config) {
			c.Signals = Signals{CPUPercent: 120, ThrottledPercent: 100, ThrottledFor: -time.Minute, NetworkErrorsPerSecond: -1, RelistSlow: -time.Second}
		}, []string{
			"--cpu-pressure-percent 120: want a percentage from 1 to 100",
			"--kubelet-cpu-throttled-percent 100: want a percentage from above 0 to below 100",
			"--kubelet-cpu-throttled-for -1m0s: want a positive duration",
			"--kubelet-network-errors-per-second -1: want a positive rate",
			"--kubelet-pleg-relist-slow -1s: want a positive duration",
		}},
		{"a flag without a URL", func(c *Config) { c.Flags = []string{"worker-1"} }, []string{
			`--kubelet "worker-1": want NAME=URL, such as worker-1=https://10.0.0.11:10250`,
		}},
		{"a bad name and a bad scheme", func(c *Config) { c.Flags = []string{"Worker_1=ftp://x"} }, []string{
			`--kubelet Worker_1=ftp://x: KubeletTarget "Worker_1" is invalid: metadata.name: Invalid value: "Worker_1"`,
			`spec.url: Invalid value: "ftp://x": the scheme must be "https"`,
		}},
		{"a name twice", func(c *Config) {
			c.Flags = []string{"w=http://a:10255"}
			c.File = write("dup.yaml", "targets: [{name: w, url: 'http://b:10255'}]")
		}, []string{`targets[0]: kubelet target "w" is already given by --kubelet w=http://a:10255`}},
		{"a typo in the file", func(c *Config) { c.File = write("typo.yaml", "targets: [{name: w, ulr: 'http://b:10255'}]") }, []string{
			`unknown field "ulr"`,
		}},
		{"no file", func(c *Config) { c.File = filepath.Join(dir, "missing.yaml") }, []string{"--kubelet-config: open", "no such file"}},
		{"TLS settings on the read-only port", func(c *Config) {
			c.File = write("tls.yaml", "targets: [{name: w, url: 'http://b:10255', caFile: /ca.pem}]")
		}, []string{`targets[0]: KubeletTarget "w" is invalid: spec.caFile: applies to https URLs only`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			tt.change(&cfg)
			err := cfg.Validate()
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want one saying %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
