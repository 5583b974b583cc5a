package kubelet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"herd/domain"
)

// sharedFixtures is where real kubelet recordings (minikube, GKE) live
// beside the repository, when they do (../shared/fixtures/kubelet from the
// repository's root; see its SOURCES.md). HERD_KUBELET_FIXTURES names
// another place, for a checkout that is not beside them (a git worktree).
func sharedFixtures() string {
	if dir := os.Getenv("HERD_KUBELET_FIXTURES"); dir != "" {
		return dir
	}
	return "../../../shared/fixtures/kubelet"
}

// TestSharedFixturesDecode checks that every recording in the shared
// fixtures folder decodes without error: the decoders meet what real
// kubelets serve, not only what herd's own fixtures say. It is skipped
// when the folder is not there.
func TestSharedFixturesDecode(t *testing.T) {
	dir := sharedFixtures()
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) {
		t.Skipf("%s is not here", dir)
	}
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || name == "SOURCES.md" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case strings.HasPrefix(name, "stats-summary"):
				s, err := decodeSummary(body)
				if err != nil {
					t.Fatal(err)
				}
				if s.NodeName == "" || s.empty() {
					t.Errorf("a summary without a node name or figures: %+v", s)
				}
				// Recordings of healthy nodes: nothing in them is pressure.
				for _, c := range pressureConditions(s.Metrics, DefaultThresholds()) {
					if c.Status != domain.ConditionFalse {
						t.Errorf("%s is %s on a healthy node: %s", c.Type, c.Status, c.Message)
					}
				}
			case strings.HasPrefix(name, "pods"):
				l, err := decodePods(body)
				if err != nil {
					t.Fatal(err)
				}
				if pods := ObservedPods("fixture", l, nil); len(pods) == 0 {
					t.Error("no pods")
				}
			case strings.HasPrefix(name, "configz"):
				s, err := decodeConfigz(body)
				if err != nil {
					t.Fatal(err)
				}
				if !s.FromConfigz || len(s.Problems) > 0 {
					t.Errorf("settings %+v: want thresholds from the file and no problem", s)
				}
			case strings.HasPrefix(name, "metrics-probes"):
				if _, err := decodeProbes(body); err != nil {
					t.Fatal(err)
				}
			case strings.HasPrefix(name, "metrics-resource"):
				if _, err := decodeResource(body); err != nil {
					t.Fatal(err)
				}
			case strings.HasPrefix(name, "metrics-cadvisor"):
				s, err := decodeCadvisor(body)
				if err != nil {
					t.Fatal(err)
				}
				if len(s.CFS) == 0 || !s.NetworkKnown {
					t.Errorf("%d containers with CFS figures, node network errors known %v: want some and true", len(s.CFS), s.NetworkKnown)
				}
			case strings.HasPrefix(name, "metrics-kubelet"):
				s, err := decodeKubeletMetrics(body)
				if err != nil {
					t.Fatal(err)
				}
				if s.Version == "" || !s.RelistKnown {
					t.Errorf("%+v: want the kubelet's version and its relist figures", s)
				}
			case strings.HasPrefix(name, "spec"):
				// /spec (cAdvisor's MachineInfo): the machine's size and
				// identity, which kubelet nodes lack elsewhere.
				spec, err := decodeSpec(body)
				if err != nil {
					t.Fatal(err)
				}
				if c := spec.capacity(); c["cpu"] <= 0 || c["memory"] <= 0 || spec.MachineID == "" || spec.SystemUUID == "" || spec.BootID == "" {
					t.Errorf("a machine of %v, identity %+v", c, spec)
				}
			default:
				t.Fatalf("herd has no decoder for %s: name it after the endpoint it records", name)
			}
			checked++
		})
	}
	if checked == 0 {
		t.Errorf("%s holds no recording", dir)
	}
}
