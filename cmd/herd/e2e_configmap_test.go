package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// TestKubectlConfigMaps drives ConfigMaps with the machine's kubectl
// against a real herd serve: create, get, apply (twice), replace (and a
// stale replace), patch of every kind, edit, label, delete; then the
// audit log through herd log.
func TestKubectlConfigMaps(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{})
	if out := srv.output.String(); !strings.Contains(out, "NO AUTHENTICATION") {
		t.Errorf("serve without a token file did not say so at start:\n%s", out)
	}
	kc := newKubectl(t, srv.URL)
	dir := t.TempDir()
	get := func(t *testing.T) corev1.ConfigMap {
		t.Helper()
		var cm corev1.ConfigMap
		if err := yaml.Unmarshal([]byte(kc.must(t, "get", "configmap", "pico-config", "-o", "yaml")), &cm); err != nil {
			t.Fatalf("kubectl's yaml is not a ConfigMap: %v", err)
		}
		return cm
	}
	file := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	wantData := func(t *testing.T, want map[string]string) {
		t.Helper()
		got := get(t).Data
		if len(got) != len(want) {
			t.Fatalf("data %v, want %v", got, want)
		}
		for k, v := range want {
			if got[k] != v {
				t.Fatalf("data %v, want %v", got, want)
			}
		}
	}

	manifest := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pico-config\n  namespace: default\ndata:\n  interval: \"10\"\n  led: \"on\"\n"
	if out := kc.must(t, "apply", "-f", file("cm.yaml", manifest)); !strings.Contains(out, "configmap/pico-config created") {
		t.Errorf("first apply said %q", out)
	}
	wantData(t, map[string]string{"interval": "10", "led": "on"})
	manifest = strings.Replace(strings.Replace(manifest, `"10"`, `"5"`, 1), "  led: \"on\"\n", "", 1)
	if out := kc.must(t, "apply", "-f", file("cm.yaml", manifest)); !strings.Contains(out, "configmap/pico-config configured") {
		t.Errorf("second apply said %q", out)
	}
	wantData(t, map[string]string{"interval": "5"})

	read := get(t)
	read.Data["interval"] = "7"
	stale, err := yaml.Marshal(read)
	if err != nil {
		t.Fatal(err)
	}
	if out := kc.must(t, "replace", "-f", file("read.yaml", string(stale))); !strings.Contains(out, "replaced") {
		t.Errorf("replace said %q", out)
	}
	res := kc.run(t, "replace", "-f", file("read.yaml", string(stale)))
	if res.Code == 0 || !strings.Contains(res.Stderr, "Conflict") {
		t.Errorf("a replace based on an old resourceVersion: exit %d, stderr %q; want Conflict", res.Code, res.Stderr)
	}

	kc.must(t, "patch", "configmap", "pico-config", "-p", `{"data":{"mode":"blink"}}`)
	kc.must(t, "patch", "configmap", "pico-config", "--type", "merge", "-p", `{"data":{"mode":null,"led":"off"}}`)
	kc.must(t, "patch", "configmap", "pico-config", "--type", "json", "-p", `[{"op":"replace","path":"/data/interval","value":"3"}]`)
	wantData(t, map[string]string{"interval": "3", "led": "off"})

	editor := file("editor.sh", "#!/bin/sh\nsed -i 's/interval: \"3\"/interval: \"1\"/' \"$1\"\n")
	if err := os.Chmod(editor, 0o700); err != nil {
		t.Fatal(err)
	}
	kc.env = append(kc.env, "KUBE_EDITOR="+editor)
	if out := kc.must(t, "edit", "configmap", "pico-config"); !strings.Contains(out, "edited") {
		t.Errorf("kubectl edit said %q", out)
	}
	wantData(t, map[string]string{"interval": "1", "led": "off"})

	// kubectl's server-side dry runs: herd decides them as it would the
	// real request, answers with the object, and changes nothing.
	if out := kc.must(t, "create", "configmap", "dry-config", "--from-literal=k=v", "--dry-run=server", "-o", "yaml"); !strings.Contains(out, "name: dry-config") {
		t.Errorf("create --dry-run=server printed %q", out)
	}
	if res := kc.run(t, "get", "configmap", "dry-config"); res.Code == 0 || !strings.Contains(res.Stderr, "NotFound") {
		t.Errorf("a dry run created the ConfigMap: exit %d, %q", res.Code, res.Stderr)
	}
	if out := kc.must(t, "patch", "configmap", "pico-config", "-p", `{"data":{"interval":"99"}}`, "--dry-run=server", "-o", "yaml"); !strings.Contains(out, `interval: "99"`) {
		t.Errorf("patch --dry-run=server printed %q", out)
	}
	kc.must(t, "delete", "configmap", "pico-config", "--dry-run=server")
	wantData(t, map[string]string{"interval": "1", "led": "off"})

	kc.must(t, "label", "configmap", "pico-config", "app=pico")
	_, rows := table(t, kc.must(t, "get", "configmaps", "-l", "app=pico"))
	if got := names(rows); len(got) != 1 || got[0] != "pico-config" || byName(rows)["pico-config"][1] != "2" {
		t.Errorf("kubectl get configmaps -l app=pico: %v", rows)
	}
	if out := kc.must(t, "delete", "configmap", "pico-config"); !strings.Contains(out, `configmap "pico-config" deleted`) {
		t.Errorf("delete said %q", out)
	}
	if res := kc.run(t, "get", "configmap", "pico-config"); res.Code == 0 || !strings.Contains(res.Stderr, "NotFound") {
		t.Errorf("get after delete: exit %d, stderr %q", res.Code, res.Stderr)
	}

	out := mustHerd(t, "log", "--server", srv.URL, "--stream", "configmap/default/pico-config").Stdout
	_, rows = table(t, out)
	types := column(rows, 4)
	// The label alone is the ConfigMap's metadata, its own event.
	want := []string{"ConfigMapCreated", "ConfigMapUpdated", "ConfigMapUpdated", "ConfigMapUpdated", "ConfigMapUpdated",
		"ConfigMapUpdated", "ConfigMapUpdated", "ConfigMapMetadataChanged", "ConfigMapDeleted"}
	if strings.Join(types, " ") != strings.Join(want, " ") {
		t.Errorf("herd log of pico-config: %v, want %v\n%s", types, want, out)
	}
	for _, actor := range column(rows, 5) {
		if actor != "system:anonymous" {
			t.Errorf("actor %q, want system:anonymous on a herd without tokens", actor)
		}
	}
}

// TestServeRefusesAnonymousOffLoopback: without a token file, herd will not
// listen beyond loopback unless told it is on purpose. The address is a
// documentation address (TEST-NET-1): herd refuses before it binds.
func TestServeRefusesAnonymousOffLoopback(t *testing.T) {
	t.Parallel()
	res := herd(t, nil, "serve", "--data-dir", t.TempDir(), "--listen", "192.0.2.1:8080")
	if res.Code == 0 {
		t.Fatal("serve started on a non-loopback address without a token file")
	}
	for _, want := range []string{"--listen 192.0.2.1:8080 is not a loopback address", "--token-auth-file", "--insecure-allow-anonymous"} {
		if !strings.Contains(res.Stderr, want) {
			t.Errorf("stderr %q lacks %q", res.Stderr, want)
		}
	}
}
