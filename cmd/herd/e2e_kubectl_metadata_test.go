package main

import (
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestKubectlLabelAndAnnotateDeployment: kubectl label and kubectl
// annotate of a Deployment served by herd record DeploymentMetadataChanged,
// each naming what it changed in the audit log, not DeploymentChanged;
// the generation stays as it was, so kubectl rollout status still says
// the Deployment has rolled out, and no new ReplicaSet is made. A label
// given again as it is records nothing.
func TestKubectlLabelAndAnnotateDeployment(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Skip("kubectl is not on PATH")
	}
	srv := startServe(t, serveOptions{Args: []string{"--demo", "2"}})
	kc := newKubectl(t, srv.URL)
	rollout := func() {
		t.Helper()
		if out := kc.must(t, "rollout", "status", "deployment/web", "--timeout=120s"); !strings.Contains(out, `deployment "web" successfully rolled out`) {
			t.Fatalf("kubectl rollout status said %q", out)
		}
	}
	generations := func() string {
		t.Helper()
		return kc.must(t, "get", "deployment", "web", "-o", "jsonpath={.metadata.generation}/{.status.observedGeneration}")
	}
	type auditItem struct {
		Type    string `json:"type"`
		Payload struct {
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
			Changed     []string          `json:"changed"`
		} `json:"payload"`
	}
	audit := func() []auditItem {
		t.Helper()
		var list struct {
			Items []auditItem `json:"items"`
		}
		mustCall(t, http.StatusOK, http.MethodGet, srv.URL+"/apis/herd.dev/v1/auditevents?stream=deployment/default/web", nil, &list)
		return list.Items
	}

	kc.must(t, "create", "deployment", "web", "--image=nginx:1", "--replicas=2")
	rollout()
	before := generations()
	if before != "1/1" {
		t.Fatalf("a new Deployment rolled out at generation/observed %q, want 1/1", before)
	}

	kc.must(t, "label", "deployment", "web", "tier=edge")
	kc.must(t, "annotate", "deployment", "web", "note=relabelled")
	kc.must(t, "label", "deployment", "web", "tier=edge", "--overwrite")
	if got := generations(); got != before {
		t.Errorf("after kubectl label and annotate the generation/observed is %q, want %q as before", got, before)
	}
	rollout()

	var metadata []auditItem
	for _, e := range audit() {
		switch e.Type {
		case "DeploymentMetadataChanged":
			metadata = append(metadata, e)
		case "DeploymentChanged":
			t.Errorf("a change of labels or annotations recorded DeploymentChanged: %+v", e)
		}
	}
	if len(metadata) != 2 {
		t.Fatalf("the audit log holds %d DeploymentMetadataChanged, want 2 (the label, the annotation): %+v", len(metadata), metadata)
	}
	if l, c := metadata[0].Payload.Labels, metadata[0].Payload.Changed; l["tier"] != "edge" || l["app"] != "web" || !slices.Equal(c, []string{"metadata.labels.tier"}) {
		t.Errorf("kubectl label recorded labels %v, changed %v; want tier=edge beside app=web, metadata.labels.tier", l, c)
	}
	if a, c := metadata[1].Payload.Annotations, metadata[1].Payload.Changed; a["note"] != "relabelled" || !slices.Equal(c, []string{"metadata.annotations.note"}) {
		t.Errorf("kubectl annotate recorded annotations %v, changed %v; want note=relabelled, metadata.annotations.note", a, c)
	}

	if got := kc.must(t, "get", "deployment", "web", "-o", "jsonpath={.metadata.labels.tier} {.metadata.annotations.note}"); got != "edge relabelled" {
		t.Errorf("kubectl get deployment web shows label and annotation %q, want %q", got, "edge relabelled")
	}
	if _, rows := table(t, kc.must(t, "get", "replicasets", "-l", "app=web")); len(rows) != 1 {
		t.Errorf("after kubectl label and annotate the Deployment has %d ReplicaSets, want its one: %v", len(rows), rows)
	}

	// A change of the spec is still a new generation, which the rollout
	// reaches.
	kc.must(t, "set", "image", "deployment/web", "nginx=nginx:2")
	rollout()
	if got := generations(); got != "2/2" {
		t.Errorf("after kubectl set image the generation/observed is %q, want 2/2", got)
	}
}
