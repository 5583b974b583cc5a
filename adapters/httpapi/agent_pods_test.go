package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"

	"herd/adapters/conversions"
	"herd/domain"
)

// podOn writes default/name, bound to node with an address, through the
// unit of work, then applies more.
func (a *testAPI) podOn(t *testing.T, name, node string, more ...domain.PodCommand) domain.Pod {
	t.Helper()
	grace := int64(30)
	cmds := append([]domain.PodCommand{
		domain.CreatePod{Namespace: "default", Name: name, UID: "uid-" + name, TerminationGracePeriodSeconds: &grace,
			Annotations: map[string]string{"team": "web"},
			Spec: domain.PodSpec{NodeName: node, Containers: []domain.Container{{Name: "app", Image: "busybox",
				Limits: domain.ResourceList{"cpu": 1500, "memory": 512 << 20}}},
				Zone: &domain.ZoneSpec{Brand: "lx", Image: "ubuntu.tar.xz", Volumes: []domain.ZoneVolume{{Name: "data", MountPath: "/data", Persistent: true}}}}},
		domain.AssignPodIP{Network: domain.PodNetwork{Pool: "10.88.0.0/16", IP: "10.88.0.2", PrefixLength: 16, Gateway: "10.88.0.1"}},
	}, more...)
	p, err := a.writer.PodCommands().Execute(t.Context(), domain.Key{Namespace: "default", Name: name}, domain.PodSequence(cmds))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAnAgentReadsBackThePodHerdHas(t *testing.T) {
	tests := []struct {
		name string
		more []domain.PodCommand
	}{
		{"running", []domain.PodCommand{domain.UpdatePodStatus{Status: domain.PodStatus{Phase: domain.PodRunning, StartTime: t0}}}},
		{"being deleted, shut down and halted", []domain.PodCommand{domain.DeletePod{},
			domain.RecordTermination{Step: domain.StepShutdownRequested}, domain.RecordTermination{Step: domain.StepHalted},
			domain.RecordTermination{Step: domain.StepStopped}}},
		{"stopped and deprovisioned", []domain.PodCommand{domain.DeletePod{},
			domain.RecordTermination{Step: domain.StepStopped}, domain.RecordTermination{Step: domain.StepDeprovisioned}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			api := newTestAPI(t, nil)
			base := api.serve(t).URL
			want := api.podOn(t, "web", "zone-01", tt.more...)
			var kp corev1.Pod
			if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: "/api/v1/namespaces/default/pods/web"}).body, &kp); err != nil {
				t.Fatal(err)
			}
			got, err := conversions.PodFromAPI(kp)
			if err != nil {
				t.Fatal(err)
			}
			// A client sees neither the stream's length nor when
			// conditions last changed.
			opts := cmp.Options{cmpopts.IgnoreFields(domain.Pod{}, "Version"), cmpopts.IgnoreFields(domain.PodCondition{}, "LastTransitionTime"), cmpopts.EquateEmpty()}
			if diff := cmp.Diff(want, got, opts); diff != "" {
				t.Errorf("(-herd's +the agent's):\n%s", diff)
			}
		})
	}
}

func TestRecordingTerminationSteps(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	api.podOn(t, "web", "zone-01", domain.DeletePod{})
	api.podOn(t, "idle", "zone-01")
	path := "/apis/herd.dev/v1/namespaces/default/pods/web/termination"
	tests := []struct {
		name       string
		path, body string
		code       int
		reason     string
		field      string
	}{
		{"shutdown requested", path, `{"step":"ShutdownRequested","uid":"uid-web"}`, 200, "", ""},
		{"again changes nothing", path, `{"step":"ShutdownRequested"}`, 200, "", ""},
		{"an unknown step", path, `{"step":"Vanished"}`, 422, "Invalid", "step"},
		{"no step", path, `{}`, 422, "Invalid", "step"},
		{"a typo", path, `{"stp":"Stopped"}`, 400, "BadRequest", ""},
		{"another pod of the same name", path, `{"step":"Stopped","uid":"uid-other"}`, 409, "Conflict", ""},
		{"a pod nobody deleted", "/apis/herd.dev/v1/namespaces/default/pods/idle/termination", `{"step":"Stopped"}`, 409, "Conflict", ""},
		{"no such pod", "/apis/herd.dev/v1/namespaces/default/pods/nope/termination", `{"step":"Stopped"}`, 404, "NotFound", ""},
		{"stopped", path, `{"step":"Stopped","uid":"uid-web"}`, 200, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			head := api.head(t)
			a := send(t, nil, base, req{method: "POST", path: tt.path, body: tt.body})
			if a.code != tt.code {
				t.Fatalf("%d %s, want %d", a.code, a.body, tt.code)
			}
			if tt.code != 200 {
				reason, _ := a.status(t)
				if reason != tt.reason || tt.field != "" && !strings.Contains(string(a.body), `"field":"`+tt.field+`"`) {
					t.Errorf("%s, want %s naming %q", a.body, tt.reason, tt.field)
				}
				if api.head(t) != head {
					t.Error("a refused step changed the log")
				}
			}
		})
	}
	var kp corev1.Pod
	if err := json.Unmarshal(mustSend(t, nil, base, 200, req{method: "GET", path: "/api/v1/namespaces/default/pods/web"}).body, &kp); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{conversions.AnnotationShutdownRequestedAt, conversions.AnnotationStoppedAt} {
		if kp.Annotations[k] != t0.Format(time.RFC3339Nano) {
			t.Errorf("%s = %q", k, kp.Annotations[k])
		}
	}
	if _, ok := kp.Annotations[conversions.AnnotationDeprovisionedAt]; ok {
		t.Error("deprovisioned before anyone said so")
	}
}

func TestANodeRunsOnlyItsOwnPods(t *testing.T) {
	api, base := newAuthAPI(t)
	api.podOn(t, "mine", "pico-01", domain.DeletePod{})
	api.podOn(t, "theirs", "pico-02", domain.DeletePod{})
	status := `{"metadata":{"name":"%s"},"status":{"phase":"Running"}}`
	tests := []struct {
		name string
		rq   req
		code int
	}{
		{"lists its own pods", req{method: "GET", path: "/api/v1/pods?fieldSelector=spec.nodeName%3Dpico-01"}, 200},
		{"lists no one else's", req{method: "GET", path: "/api/v1/pods?fieldSelector=spec.nodeName%3Dpico-02"}, 403},
		{"lists not every pod", req{method: "GET", path: "/api/v1/pods"}, 403},
		{"reads its own pod", req{method: "GET", path: "/api/v1/namespaces/default/pods/mine"}, 200},
		{"reads no one else's", req{method: "GET", path: "/api/v1/namespaces/default/pods/theirs"}, 403},
		{"learns nothing of a pod that is not there", req{method: "GET", path: "/api/v1/namespaces/default/pods/nope"}, 403},
		{"reports its own pod's status", req{method: "PUT", path: "/api/v1/namespaces/default/pods/mine/status", body: strings.Replace(status, "%s", "mine", 1)}, 200},
		{"reports no one else's", req{method: "PUT", path: "/api/v1/namespaces/default/pods/theirs/status", body: strings.Replace(status, "%s", "theirs", 1)}, 403},
		{"records its own pod's steps", req{method: "POST", path: "/apis/herd.dev/v1/namespaces/default/pods/mine/termination", body: `{"step":"Stopped"}`}, 200},
		{"records no one else's", req{method: "POST", path: "/apis/herd.dev/v1/namespaces/default/pods/theirs/termination", body: `{"step":"Stopped"}`}, 403},
		{"deletes no pod", req{method: "DELETE", path: "/api/v1/namespaces/default/pods/mine"}, 403},
		{"creates no pod", req{method: "POST", path: "/api/v1/namespaces/default/pods", body: `{"metadata":{"name":"x"}}`}, 403},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.rq.token = "pico1-token"
			if a := send(t, nil, base, tt.rq); a.code != tt.code {
				t.Errorf("%d %s, want %d", a.code, a.body, tt.code)
			}
		})
	}
}

func TestAnAgentSaysItRunsItsOwnPods(t *testing.T) {
	api := newTestAPI(t, nil)
	base := api.serve(t).URL
	node := func(runtime string) string {
		return `{"metadata":{"name":"zone-01","labels":{"herd.dev/kind":"illumos","herd.dev/runtime":"` + runtime + `","herd.dev/other":"x","rack":"r1"}}}`
	}
	a := send(t, nil, base, req{method: "PUT", path: "/apis/herd.dev/v1/nodes/zone-01/registration", body: node("serve")})
	if reason, msg := a.status(t); a.code != 422 || reason != "Invalid" || !strings.Contains(msg, "herd.dev/runtime") {
		t.Errorf("runtime serve: %d %s", a.code, a.body)
	}
	mustSend(t, nil, base, 200, req{method: "PUT", path: "/apis/herd.dev/v1/nodes/zone-01/registration", body: node("agent")})
	n, err := api.NodeView.Get(t.Context(), "zone-01")
	if err != nil {
		t.Fatal(err)
	}
	// The kind label is stored, and a client's own herd.dev/ label kept.
	want := map[string]string{"herd.dev/kind": "illumos", "herd.dev/runtime": "agent", "herd.dev/other": "x", "rack": "r1"}
	if diff := cmp.Diff(want, n.Labels); diff != "" {
		t.Errorf("labels (-want +got):\n%s", diff)
	}
	if !n.RunsOwnPods() || n.Kind != domain.KindIllumos {
		t.Errorf("%s node, runs its own pods: %v", n.Kind, n.RunsOwnPods())
	}
	if got := conversions.NodeFromAPI(conversions.NodeToAPI(n)); got.Name != "zone-01" || got.Kind != domain.KindIllumos || !got.RunsOwnPods() {
		t.Errorf("read back: %+v", got)
	}
}
