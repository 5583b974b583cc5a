package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"herd/domain"
	"herd/projections/watch"
)

func (a *watchAPI) pod(t *testing.T, namespace, name string, cmd domain.PodCommand) domain.Pod {
	t.Helper()
	p, err := a.w.PodCommands().Execute(context.Background(), domain.Key{Namespace: namespace, Name: name}, cmd)
	if err != nil {
		t.Fatalf("%T on %s/%s: %v", cmd, namespace, name, err)
	}
	return p
}

func createPod(namespace, name string) domain.CreatePod {
	return domain.CreatePod{Namespace: namespace, Name: name, UID: "uid-" + name,
		Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c", Image: "nginx"}}}}
}

func podNames(t *testing.T, body []byte) (cont string, out []string) {
	t.Helper()
	var list corev1.PodList
	if err := json.Unmarshal(body, &list); err != nil || list.Kind != "PodList" {
		t.Fatalf("not a PodList: %s", body)
	}
	for _, p := range list.Items {
		out = append(out, p.Namespace+"/"+p.Name)
	}
	return list.Continue, out
}

// TestPodsArePagedAndWatchedByNamespace lists pods in one namespace page
// by page while others change, and watches one namespace: neither sees
// the pods of another.
func TestPodsArePagedAndWatchedByNamespace(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	for _, p := range [][2]string{{"default", "a"}, {"default", "b"}, {"default", "c"}, {"kube-system", "x"}, {"other", "y"}, {"default-2", "z"}} {
		a.pod(t, p[0], p[1], createPod(p[0], p[1]))
	}
	_, all := podNames(t, mustGet(t, a, "/api/v1/pods"))
	if want := []string{"default/a", "default/b", "default/c", "default-2/z", "kube-system/x", "other/y"}; !cmp.Equal(want, all) {
		t.Errorf("every pod: %v, want %v", all, want)
	}

	cont, first := podNames(t, mustGet(t, a, "/api/v1/namespaces/default/pods?limit=2"))
	zero := int64(0)
	a.pod(t, "default", "c", domain.DeletePod{GracePeriodSeconds: &zero})
	a.pod(t, "default", "bb", createPod("default", "bb"))
	cont2, second := podNames(t, mustGet(t, a, "/api/v1/namespaces/default/pods?limit=2&continue="+cont))
	if got := slices.Concat(first, second); !cmp.Equal(got, []string{"default/a", "default/b", "default/c"}) || cont2 != "" {
		t.Errorf("pages of default: %v (continue %q), want a, b and c as when the first page was read, and no more", got, cont2)
	}

	from := a.head(t)
	stream := a.open(t, "/api/v1/namespaces/default/pods?watch=true&resourceVersion="+strconv.FormatInt(from, 10), nil)
	a.pod(t, "kube-system", "w", createPod("kube-system", "w"))
	d := a.pod(t, "default", "d", createPod("default", "d"))
	gone := a.pod(t, "default", "a", domain.DeletePod{GracePeriodSeconds: &zero})
	// A deletion without grace asks for it and finalizes at once, in one
	// write: the watch sees the pod go, once, as from kube-apiserver.
	for _, want := range []string{
		"ADDED d@" + strconv.FormatInt(d.ResourceVersion, 10),
		"DELETED a@" + strconv.FormatInt(gone.ResourceVersion, 10),
	} {
		f := stream.frame(t)
		if got := f.Type + " " + objectRV(t, f); got != want {
			t.Errorf("watch of default: %s, want %s", got, want)
		}
	}
}

func mustGet(t *testing.T, a *watchAPI, path string) []byte {
	t.Helper()
	code, body := a.get(t, path, "")
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, code, body)
	}
	return body
}
