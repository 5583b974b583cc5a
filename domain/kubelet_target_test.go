package domain

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// kubeletTarget is a complete, valid target on the kubelet's TLS port.
func kubeletTarget(name string) KubeletTarget {
	return KubeletTarget{
		Name: name, URL: "https://10.0.0.7:10250",
		CAFile: "/etc/herd/kubelet-ca.pem", ClientCertFile: "/etc/herd/client.pem", ClientKeyFile: "/etc/herd/client-key.pem",
		Source: SourceAPI,
	}
}

// selfSignedPEM is a freshly made CA certificate in PEM.
func selfSignedPEM(t *testing.T) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kubelet-ca"},
		NotBefore: t0, NotAfter: t0.Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

func TestValidateKubeletTarget(t *testing.T) {
	ca := selfSignedPEM(t)
	tests := []struct {
		name   string
		change func(*KubeletTarget)
		want   []FieldError
	}{
		{"complete", func(*KubeletTarget) {}, nil},
		{"read-only port without TLS", func(k *KubeletTarget) {
			*k = KubeletTarget{Name: k.Name, URL: "http://10.0.0.7:10255", Source: SourceConfig}
		}, nil},
		{"through the API server's proxy", func(k *KubeletTarget) {
			k.URL = "https://apiserver.example:6443/api/v1/nodes/web-01/proxy"
		}, nil},
		{"inline CA bundle", func(k *KubeletTarget) { k.CAFile, k.CAData = "", ca }, nil},
		{"bearer token", func(k *KubeletTarget) {
			k.ClientCertFile, k.ClientKeyFile, k.BearerTokenFile = "", "", "/var/run/secrets/token"
		}, nil},
		{"no name, no URL", func(k *KubeletTarget) { k.Name, k.URL = "", "" }, []FieldError{
			{Field: "metadata.name", Reason: "required"}, {Field: "spec.url", Reason: "required"},
		}},
		{"bad name", func(k *KubeletTarget) { k.Name = "Web_01" }, []FieldError{
			{Field: "metadata.name", Value: "Web_01", Reason: dns1123SubdomainMsg},
		}},
		{"another scheme", func(k *KubeletTarget) { k.URL = "ftp://10.0.0.7" }, []FieldError{
			{Field: "spec.url", Value: "ftp://10.0.0.7", Reason: `the scheme must be "https" (the kubelet's port 10250) or "http" (its read-only port)`},
		}},
		{"no host", func(k *KubeletTarget) { k.URL = "https:///stats" }, []FieldError{
			{Field: "spec.url", Value: "https:///stats", Reason: "must name a host"},
		}},
		{"not a URL", func(k *KubeletTarget) { k.URL = "https://[::1" }, []FieldError{
			{Field: "spec.url", Value: "https://[::1", Reason: `not a URL: parse "https://[::1": missing ']' in host`},
		}},
		{"credentials in the URL", func(k *KubeletTarget) { k.URL = "https://admin:pw@10.0.0.7:10250" }, []FieldError{
			{Field: "spec.url", Value: "https://admin:pw@10.0.0.7:10250", Reason: "must not hold credentials; use spec.bearerTokenFile or a client certificate"},
		}},
		{"a query", func(k *KubeletTarget) { k.URL = "https://10.0.0.7:10250/?x=1" }, []FieldError{
			{Field: "spec.url", Value: "https://10.0.0.7:10250/?x=1", Reason: "must not have a query or a fragment"},
		}},
		{"relative paths", func(k *KubeletTarget) { k.CAFile, k.BearerTokenFile = "ca.pem", "token" }, []FieldError{
			{Field: "spec.caFile", Value: "ca.pem", Reason: "must be an absolute path"},
			{Field: "spec.bearerTokenFile", Value: "token", Reason: "must be an absolute path"},
		}},
		{"CA twice", func(k *KubeletTarget) { k.CAData = ca }, []FieldError{
			{Field: "spec.caData", Reason: "give the CA bundle as spec.caFile or spec.caData, not both"},
		}},
		{"CA data without a certificate", func(k *KubeletTarget) { k.CAFile, k.CAData = "", "hello" }, []FieldError{
			{Field: "spec.caData", Reason: "holds no PEM certificate"},
		}},
		{"a key in the CA bundle", func(k *KubeletTarget) {
			k.CAFile, k.CAData = "", ca+"-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"
		}, []FieldError{
			{Field: "spec.caData", Reason: "holds a PRIVATE KEY block; only CERTIFICATE blocks belong in a CA bundle"},
		}},
		{"a certificate without its key", func(k *KubeletTarget) { k.ClientKeyFile = "" }, []FieldError{
			{Field: "spec.clientKeyFile", Reason: "required with spec.clientCertFile"},
		}},
		{"a key without its certificate", func(k *KubeletTarget) { k.ClientCertFile = "" }, []FieldError{
			{Field: "spec.clientCertFile", Reason: "required with spec.clientKeyFile"},
		}},
		{"TLS settings on plain HTTP", func(k *KubeletTarget) {
			k.URL, k.InsecureSkipVerify = "http://10.0.0.7:10255", true
		}, []FieldError{
			{Field: "spec.caFile", Reason: "applies to https URLs only"},
			{Field: "spec.clientCertFile", Reason: "applies to https URLs only"},
			{Field: "spec.insecureSkipVerify", Reason: "applies to https URLs only"},
		}},
		{"unknown source", func(k *KubeletTarget) { k.Source = "magic" }, []FieldError{
			{Field: "status.source", Value: "magic", Reason: `supported values: "api", "config"`},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := kubeletTarget("web-01")
			tt.change(&k)
			err := ValidateKubeletTarget(k)
			var got []FieldError
			if err != nil {
				inv, ok := errors.AsType[*InvalidError](err)
				if !ok {
					t.Fatalf("error %v, want an *InvalidError", err)
				}
				if inv.Kind != "KubeletTarget" {
					t.Errorf("kind %q, want KubeletTarget", inv.Kind)
				}
				got = inv.Fields
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("field errors (-want +got):\n%s", diff)
			}
		})
	}
}

// targets folds events into a set of targets, setting resourceVersions
// as the projection would (the event's index plus one).
func targets(evs ...Event) KubeletTargets {
	var ts KubeletTargets
	for i, e := range evs {
		ts = EvolveKubeletTargets(ts, e)
		if s, ok := e.(KubeletTargetSet); ok {
			t := ts.Targets[s.Target.Name]
			t.ResourceVersion = int64(i + 1)
			ts.Targets[s.Target.Name] = t
		}
	}
	return ts
}

func TestDecideKubeletTargets(t *testing.T) {
	api := kubeletTarget("web-01")
	conf := kubeletTarget("k8s-01")
	conf.Source = SourceConfig
	changed := api
	changed.InsecureSkipVerify = true
	both := targets(KubeletTargetSet{Target: api, At: at(1)}, KubeletTargetSet{Target: conf, At: at(2)})

	tests := []struct {
		name    string
		ts      KubeletTargets
		cmd     KubeletTargetsCommand
		want    []Event
		wantErr error
	}{
		{"add", KubeletTargets{}, SetKubeletTarget{Target: api}, []Event{KubeletTargetSet{Target: api, At: at(9)}}, nil},
		{"the API's source is always api", KubeletTargets{}, SetKubeletTarget{Target: conf},
			[]Event{KubeletTargetSet{Target: func() KubeletTarget { c := conf; c.Source = SourceAPI; return c }(), At: at(9)}}, nil},
		{"the same again is nothing", both, SetKubeletTarget{Target: api}, nil, nil},
		{"change", both, SetKubeletTarget{Target: changed, ResourceVersion: 1}, []Event{KubeletTargetSet{Target: changed, At: at(9)}}, nil},
		{"change from a stale read", both, SetKubeletTarget{Target: changed, ResourceVersion: 7}, nil, ErrConflict},
		{"invalid", both, SetKubeletTarget{Target: KubeletTarget{Name: "x"}}, nil, ErrInvalid},
		{"change a configured target", both, SetKubeletTarget{Target: kubeletTarget("k8s-01")}, nil, ErrConflict},
		{"remove", both, RemoveKubeletTarget{Name: "web-01"}, []Event{KubeletTargetRemoved{Name: "web-01", Source: SourceAPI, At: at(9)}}, nil},
		{"remove an unknown target", both, RemoveKubeletTarget{Name: "ghost"}, nil, ErrNotFound},
		{"remove a configured target", both, RemoveKubeletTarget{Name: "k8s-01"}, nil, ErrConflict},
		{"configuration unchanged", both, SyncConfiguredKubeletTargets{Targets: []KubeletTarget{conf}}, nil, nil},
		{"configuration drops a target and takes over another", both,
			SyncConfiguredKubeletTargets{Targets: []KubeletTarget{kubeletTarget("web-01")}}, []Event{
				KubeletTargetSet{Target: func() KubeletTarget { c := api; c.Source = SourceConfig; return c }(), At: at(9)},
				KubeletTargetRemoved{Name: "k8s-01", Source: SourceConfig, At: at(9)},
			}, nil},
		{"configuration with a duplicate and a bad target", both,
			SyncConfiguredKubeletTargets{Targets: []KubeletTarget{conf, conf, {Name: "x", URL: "ftp://y"}}}, nil, ErrInvalid},
		{"nil command", both, nil, nil, ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecideKubeletTargets(tt.ts, tt.cmd, at(9))
			checkDecision(t, got, err, tt.want, tt.wantErr)
		})
	}
}

func TestSyncConfiguredKubeletTargetsNamesEveryProblem(t *testing.T) {
	conf := kubeletTarget("k8s-01")
	_, err := DecideKubeletTargets(KubeletTargets{}, SyncConfiguredKubeletTargets{Targets: []KubeletTarget{
		conf, conf, {Name: "x", URL: "ftp://y"},
	}}, at(9))
	want := []FieldError{
		{Field: "targets[1].name", Value: "k8s-01", Reason: "Duplicate value"},
		{Field: "targets[2].spec.url", Value: "ftp://y", Reason: `the scheme must be "https" (the kubelet's port 10250) or "http" (its read-only port)`},
	}
	inv, ok := errors.AsType[*InvalidError](err)
	if !ok {
		t.Fatalf("error %v, want an *InvalidError", err)
	}
	if diff := cmp.Diff(want, inv.Fields); diff != "" {
		t.Errorf("field errors (-want +got):\n%s", diff)
	}
}

func TestEvolveKubeletTargets(t *testing.T) {
	api := kubeletTarget("web-01")
	ts := targets(KubeletTargetSet{Target: api, At: at(1)})
	before := EvolveKubeletTargets(KubeletTargets{}, KubeletTargetSet{Target: api, At: at(1)})
	after := EvolveKubeletTargets(before, KubeletTargetRemoved{Name: "web-01", At: at(2)})
	if len(before.Targets) != 1 || after.Targets != nil || after.Version != 2 {
		t.Errorf("set then removed: before %+v, after %+v", before, after)
	}
	// A change keeps the resourceVersion the projection set until it sets
	// the next one.
	changed := api
	changed.InsecureSkipVerify = true
	got := EvolveKubeletTargets(ts, KubeletTargetSet{Target: changed, At: at(3)})
	if got.Targets["web-01"].ResourceVersion != 1 || !got.Targets["web-01"].InsecureSkipVerify || ts.Targets["web-01"].InsecureSkipVerify {
		t.Errorf("changed %+v from %+v", got.Targets["web-01"], ts.Targets["web-01"])
	}
	if n := EvolveKubeletTargets(ts, KubeletTargetRemoved{Name: "ghost"}); len(n.Targets) != 1 || n.Version != 2 {
		t.Errorf("removing an unknown target: %+v", n)
	}
}
