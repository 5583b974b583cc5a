package kubelet

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"sigs.k8s.io/yaml"

	"herd/domain"
)

// Config is how herd polls kubelets. Flags and HERD_* variables fill it;
// Validate names the setting that is wrong.
type Config struct {
	// Flags are the --kubelet NAME=URL values, each a target that takes
	// its TLS settings and credentials from Defaults.
	Flags []string
	// File is a YAML file of targets (--kubelet-config); see FileConfig.
	File string
	// Defaults are the TLS settings and credentials of the targets given
	// with --kubelet: --kubelet-certificate-authority,
	// --kubelet-client-certificate, --kubelet-client-key,
	// --kubelet-token-file and --kubelet-insecure-skip-tls-verify.
	Defaults TargetDefaults
	// StatsInterval is how often each kubelet's /healthz and
	// /stats/summary are polled, each poll a heartbeat
	// (--kubelet-stats-interval, default 10s: the kubelet's own
	// nodeStatusUpdateFrequency).
	StatsInterval time.Duration
	// Interval is how often the rest is polled: /healthz/syncloop, /pods,
	// /configz, /spec (every tenth time), /metrics/resource,
	// /metrics/probes, /metrics/cadvisor and /metrics
	// (--kubelet-poll-interval, default 30s).
	Interval time.Duration
	// Timeout bounds each request to a kubelet (--kubelet-timeout,
	// default 5s), so that a hung kubelet costs one poll, not a poller.
	Timeout time.Duration
	// MaxBackoff caps the wait between polls of a failing kubelet, which
	// doubles from StatsInterval with every failure
	// (--kubelet-max-backoff, default 2m).
	MaxBackoff time.Duration
	// Signals are the thresholds of the conditions herd reads from a
	// kubelet's figures beyond its own eviction thresholds.
	Signals Signals
	// TokenDir is the directory the bearer token files of targets added
	// through the API must lie in, symbolic links followed
	// (--kubelet-token-dir). Empty, the default, allows none: such a
	// target that names a bearerTokenFile is refused. Targets of herd's
	// own configuration (--kubelet, --kubelet-config) are not confined.
	TokenDir string
}

// Signals are the thresholds by which herd turns a kubelet's figures into
// the conditions Kubernetes has no rule for: CPUPressure, CPUThrottling,
// NetworkUnavailable and ContainerRuntimeUnhealthy. A zero field takes
// DefaultSignals' value.
type Signals struct {
	// CPUPercent raises CPUPressure while the node's CPU use
	// (/stats/summary's usageNanoCores) is above this share of its cores
	// (/spec's num_cores). It is herd's agents' threshold,
	// Thresholds.CPUPercent (--cpu-pressure-percent, default 80).
	CPUPercent int64
	// ThrottledPercent counts a container as throttled while the CFS
	// quota held it back in more than this share of its scheduling
	// periods (/metrics/cadvisor) (--kubelet-cpu-throttled-percent,
	// default 25: the share at which the Prometheus community's
	// kubernetes-mixin alert CPUThrottlingHigh fires).
	ThrottledPercent float64
	// ThrottledFor is how long a container must stay throttled before
	// CPUThrottling is raised (--kubelet-cpu-throttled-for, default 1m:
	// two slow polls at the default --kubelet-poll-interval, so that one
	// busy moment is not called trouble).
	ThrottledFor time.Duration
	// NetworkErrorsPerSecond raises NetworkUnavailable while the node's
	// network interfaces (cAdvisor's container id "/") count more receive
	// and transmit errors per second than this between two slow polls
	// (--kubelet-network-errors-per-second, default 1: a healthy link
	// counts none, and a few stray errors in a poll interval are not an
	// outage).
	NetworkErrorsPerSecond float64
	// RelistSlow raises ContainerRuntimeUnhealthy while the kubelet's
	// pod lifecycle event generator took longer than this, on average,
	// to relist the runtime's pods between two slow polls
	// (kubelet_pleg_relist_duration_seconds; --kubelet-pleg-relist-slow,
	// default 1s: the kubelet relists every second, so a slower relist
	// falls behind).
	RelistSlow time.Duration
}

// DefaultSignals are the thresholds herd uses unless told otherwise.
func DefaultSignals() Signals {
	return Signals{
		CPUPercent: domain.DefaultThresholds.CPUPercent, ThrottledPercent: 25, ThrottledFor: time.Minute,
		NetworkErrorsPerSecond: 1, RelistSlow: time.Second,
	}
}

// withDefaults fills the zero fields from DefaultSignals.
func (s Signals) withDefaults() Signals {
	d := DefaultSignals()
	if s.CPUPercent == 0 {
		s.CPUPercent = d.CPUPercent
	}
	if s.ThrottledPercent == 0 {
		s.ThrottledPercent = d.ThrottledPercent
	}
	if s.ThrottledFor == 0 {
		s.ThrottledFor = d.ThrottledFor
	}
	if s.NetworkErrorsPerSecond == 0 {
		s.NetworkErrorsPerSecond = d.NetworkErrorsPerSecond
	}
	if s.RelistSlow == 0 {
		s.RelistSlow = d.RelistSlow
	}
	return s
}

// validate names every signal threshold that is out of range.
func (s Signals) validate() []error {
	var errs []error
	if s.CPUPercent < 0 || s.CPUPercent > 100 {
		errs = append(errs, fmt.Errorf("--cpu-pressure-percent %d: want a percentage from 1 to 100", s.CPUPercent))
	}
	if s.ThrottledPercent < 0 || s.ThrottledPercent >= 100 {
		errs = append(errs, fmt.Errorf("--kubelet-cpu-throttled-percent %g: want a percentage from above 0 to below 100", s.ThrottledPercent))
	}
	if s.ThrottledFor < 0 {
		errs = append(errs, fmt.Errorf("--kubelet-cpu-throttled-for %s: want a positive duration", s.ThrottledFor))
	}
	if s.NetworkErrorsPerSecond < 0 {
		errs = append(errs, fmt.Errorf("--kubelet-network-errors-per-second %g: want a positive rate", s.NetworkErrorsPerSecond))
	}
	if s.RelistSlow < 0 {
		errs = append(errs, fmt.Errorf("--kubelet-pleg-relist-slow %s: want a positive duration", s.RelistSlow))
	}
	return errs
}

// DefaultConfig polls no kubelet, at the default intervals.
func DefaultConfig() Config {
	return Config{
		StatsInterval: 10 * time.Second,
		Interval:      30 * time.Second,
		Timeout:       5 * time.Second,
		MaxBackoff:    2 * time.Minute,
		Signals:       DefaultSignals(),
	}
}

// TargetDefaults are the settings a target takes when it names none of
// its own.
type TargetDefaults struct {
	CAFile             string `json:"caFile,omitempty"`
	ClientCertFile     string `json:"clientCertFile,omitempty"`
	ClientKeyFile      string `json:"clientKeyFile,omitempty"`
	BearerTokenFile    string `json:"bearerTokenFile,omitempty"`
	InsecureSkipVerify bool   `json:"insecureSkipVerify,omitempty"`
}

// FileConfig is the --kubelet-config file:
//
//	defaults:
//	  caFile: /etc/herd/kubelet-ca.pem
//	  bearerTokenFile: /var/run/secrets/herd/token
//	targets:
//	  - name: worker-1
//	    url: https://10.0.0.11:10250
//	  - name: lab-1
//	    url: http://10.0.0.12:10255
//
// Relative paths are taken from the file's directory. Unknown fields are
// an error, so that a typo does not silently drop a setting.
type FileConfig struct {
	Defaults TargetDefaults `json:"defaults"`
	Targets  []FileTarget   `json:"targets"`
}

// FileTarget is one target in the file; an unset setting takes the file's
// default.
type FileTarget struct {
	Name               string `json:"name"`
	URL                string `json:"url"`
	CAFile             string `json:"caFile,omitempty"`
	CAData             string `json:"caData,omitempty"`
	ClientCertFile     string `json:"clientCertFile,omitempty"`
	ClientKeyFile      string `json:"clientKeyFile,omitempty"`
	BearerTokenFile    string `json:"bearerTokenFile,omitempty"`
	InsecureSkipVerify *bool  `json:"insecureSkipVerify,omitempty"`
}

// Validate reports every wrong setting at once, each by its flag name,
// including every problem with the targets the flags and the file give.
func (c Config) Validate() error {
	var errs []error
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{
		{"--kubelet-stats-interval", c.StatsInterval}, {"--kubelet-poll-interval", c.Interval},
		{"--kubelet-timeout", c.Timeout}, {"--kubelet-max-backoff", c.MaxBackoff},
	} {
		if d.v <= 0 {
			errs = append(errs, fmt.Errorf("%s %s: want a positive duration", d.flag, d.v))
		}
	}
	if c.TokenDir != "" {
		if fi, err := os.Stat(c.TokenDir); err != nil {
			errs = append(errs, fmt.Errorf("--kubelet-token-dir %s: %w", c.TokenDir, err))
		} else if !fi.IsDir() {
			errs = append(errs, fmt.Errorf("--kubelet-token-dir %s: not a directory", c.TokenDir))
		}
	}
	errs = append(errs, c.Signals.validate()...)
	if _, err := c.Targets(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// Targets resolves the flags and the file into the configured targets,
// each checked by domain.ValidateKubeletTarget. A name given twice is an
// error.
func (c Config) Targets() ([]domain.KubeletTarget, error) {
	var (
		out  []domain.KubeletTarget
		errs []error
		seen = map[string]string{}
	)
	add := func(where string, t domain.KubeletTarget) {
		if prev, dup := seen[t.Name]; dup {
			errs = append(errs, fmt.Errorf("%s: kubelet target %q is already given by %s", where, t.Name, prev))
			return
		}
		if err := domain.ValidateKubeletTarget(t); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", where, err))
			return
		}
		seen[t.Name] = where
		out = append(out, t)
	}
	defaults, err := absDefaults(c.Defaults, "")
	if err != nil {
		errs = append(errs, err)
	}
	for _, f := range c.Flags {
		t, err := parseFlag(f, defaults)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		add(fmt.Sprintf("--kubelet %s", f), t)
	}
	if c.File != "" {
		ts, err := LoadFile(c.File)
		if err != nil {
			errs = append(errs, err)
		}
		for i, t := range ts {
			add(fmt.Sprintf("--kubelet-config %s: targets[%d]", c.File, i), t)
		}
	}
	return out, errors.Join(errs...)
}

// parseFlag reads one --kubelet NAME=URL.
func parseFlag(f string, d TargetDefaults) (domain.KubeletTarget, error) {
	name, raw, ok := strings.Cut(f, "=")
	if !ok || name == "" || raw == "" {
		return domain.KubeletTarget{}, fmt.Errorf("--kubelet %q: want NAME=URL, such as worker-1=https://10.0.0.11:10250", f)
	}
	t := domain.KubeletTarget{Name: name, URL: raw, Source: domain.SourceConfig}
	withDefaults(&t, d, false)
	return t, nil
}

// withDefaults fills what t leaves unset from d: the bearer token for
// every target, the TLS settings for https targets only (the read-only
// port has no TLS). insecureSet says t chose InsecureSkipVerify itself.
func withDefaults(t *domain.KubeletTarget, d TargetDefaults, insecureSet bool) {
	t.BearerTokenFile = pick(t.BearerTokenFile, d.BearerTokenFile)
	if u, err := url.Parse(t.URL); err != nil || u.Scheme != "https" {
		return
	}
	if t.CAFile == "" && t.CAData == "" {
		t.CAFile = d.CAFile
	}
	if t.ClientCertFile == "" && t.ClientKeyFile == "" {
		t.ClientCertFile, t.ClientKeyFile = d.ClientCertFile, d.ClientKeyFile
	}
	if !insecureSet {
		t.InsecureSkipVerify = d.InsecureSkipVerify
	}
}

// LoadFile reads a --kubelet-config file into targets (not yet validated).
func LoadFile(path string) ([]domain.KubeletTarget, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--kubelet-config: %w", err)
	}
	var fc FileConfig
	if err := yaml.UnmarshalStrict(data, &fc); err != nil {
		return nil, fmt.Errorf("--kubelet-config %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	d, err := absDefaults(fc.Defaults, dir)
	if err != nil {
		return nil, fmt.Errorf("--kubelet-config %s: %w", path, err)
	}
	out := make([]domain.KubeletTarget, 0, len(fc.Targets))
	for _, ft := range fc.Targets {
		t := domain.KubeletTarget{
			Name: ft.Name, URL: ft.URL, CAData: ft.CAData, Source: domain.SourceConfig,
			CAFile:          relTo(dir, ft.CAFile),
			ClientCertFile:  relTo(dir, ft.ClientCertFile),
			ClientKeyFile:   relTo(dir, ft.ClientKeyFile),
			BearerTokenFile: relTo(dir, ft.BearerTokenFile),
		}
		if ft.InsecureSkipVerify != nil {
			t.InsecureSkipVerify = *ft.InsecureSkipVerify
		}
		withDefaults(&t, d, ft.InsecureSkipVerify != nil)
		out = append(out, t)
	}
	return out, nil
}

// absDefaults makes the defaults' paths absolute, relative to dir (or the
// working directory when dir is empty).
func absDefaults(d TargetDefaults, dir string) (TargetDefaults, error) {
	var errs []error
	abs := func(p string) string {
		if p == "" {
			return ""
		}
		if dir != "" {
			return relTo(dir, p)
		}
		a, err := filepath.Abs(p)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
			return p
		}
		return a
	}
	d.CAFile, d.ClientCertFile, d.ClientKeyFile, d.BearerTokenFile =
		abs(d.CAFile), abs(d.ClientCertFile), abs(d.ClientKeyFile), abs(d.BearerTokenFile)
	return d, errors.Join(errs...)
}

// relTo resolves a relative path against dir.
func relTo(dir, p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

func pick(own, def string) string {
	if own != "" {
		return own
	}
	return def
}
