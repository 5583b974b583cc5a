package projections

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
)

// foldAt folds a stream from the log up to position at, with fold.
func foldAt[S any](t *testing.T, store *events.Store, stream string, at int64, fold func(S, events.Record) (S, error)) S {
	t.Helper()
	recs, err := store.ReadStreamRange(t.Context(), store.DB(), stream, 0, at)
	if err != nil {
		t.Fatal(err)
	}
	var s S
	for _, rec := range recs {
		if s, err = fold(s, rec); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestPodsAndConfigMapsFoldAndPageLikeTheirViews folds pods and ConfigMaps
// from the log at every change and compares them with what the writer
// returned then, and pages through both views, tombstones included, in
// (namespace, name) order: "default" before "default-2", though
// "default-2/a" sorts before "default/a" as a string.
func TestPodsAndConfigMapsFoldAndPageLikeTheirViews(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := context.Background()
	pod := func(ns, name string, cmd domain.PodCommand) domain.Pod {
		t.Helper()
		clk.Step(time.Second)
		p, err := w.PodCommands().Execute(ctx, domain.Key{Namespace: ns, Name: name}, cmd)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	cm := func(ns, name string, cmd domain.ConfigMapCommand) domain.ConfigMap {
		t.Helper()
		clk.Step(time.Second)
		c, err := w.ConfigMapCommands().Execute(ctx, domain.Key{Namespace: ns, Name: name}, cmd)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	createPod := func(ns, name string) domain.CreatePod {
		return domain.CreatePod{Namespace: ns, Name: name, UID: "uid-" + name, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c"}}}}
	}
	createCM := func(ns, name, v string) domain.CreateConfigMap {
		return domain.CreateConfigMap{Meta: domain.ObjectMeta{Namespace: ns, Name: name, UID: "uid-" + name}, Spec: domain.ConfigMapSpec{Data: map[string]string{"k": v}}}
	}
	zero := int64(0)
	var pods []domain.Pod
	var cms []domain.ConfigMap
	pods = append(pods, pod("default", "a", createPod("default", "a")))
	pods = append(pods, pod("default-2", "a", createPod("default-2", "a")))
	pods = append(pods, pod("default", "b", createPod("default", "b")))
	pods = append(pods, pod("default", "a", domain.DeletePod{GracePeriodSeconds: &zero}))
	pods = append(pods, pod("default", "a", createPod("default", "a")))
	cms = append(cms, cm("default", "x", createCM("default", "x", "1")))
	cms = append(cms, cm("default", "x", domain.UpdateConfigMap{Spec: domain.ConfigMapSpec{Data: map[string]string{"k": "2"}}}))
	cms = append(cms, cm("default-2", "x", createCM("default-2", "x", "1")))
	cms = append(cms, cm("default", "y", createCM("default", "y", "1")))
	cms = append(cms, cm("default", "y", domain.DeleteConfigMap{}))

	for _, p := range pods {
		if diff := cmp.Diff(p, foldAt(t, store, domain.PodStream(p.Namespace, p.Name), p.ResourceVersion, FoldPod)); diff != "" {
			t.Errorf("pod %s folded up to %d (-writer +folded):\n%s", p.Key(), p.ResourceVersion, diff)
		}
	}
	for _, c := range cms {
		if diff := cmp.Diff(c, foldAt(t, store, domain.ConfigMapStream(c.Namespace, c.Name), c.ResourceVersion, FoldConfigMap)); diff != "" {
			t.Errorf("configmap %s/%s folded up to %d (-writer +folded):\n%s", c.Namespace, c.Name, c.ResourceVersion, diff)
		}
	}

	tests := []struct {
		name  string
		after string
		limit int
		pods  []string
		cms   []string
	}{
		{"all", "", 0, []string{"default/a", "default/b", "default-2/a"}, []string{"default/x", "default/y (deleted)", "default-2/x"}},
		{"a page", "", 2, []string{"default/a", "default/b"}, []string{"default/x", "default/y (deleted)"}},
		{"after a key", "default/a", 1, []string{"default/b"}, []string{"default/x"}},
		{"from a namespace on", "default-2/", 0, []string{"default-2/a"}, []string{"default-2/x"}},
		{"past the end", "default-2/z", 0, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ps, head, err := NewPodView(store.Log()).Rows(ctx, tt.after, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var gotPods []string
			for _, p := range ps {
				gotPods = append(gotPods, p.Key()+map[bool]string{true: " (finalized)"}[p.Finalized])
			}
			cs, head2, err := NewConfigMapView(store.Log()).Rows(ctx, tt.after, tt.limit)
			if err != nil {
				t.Fatal(err)
			}
			var gotCMs []string
			for _, c := range cs {
				gotCMs = append(gotCMs, c.Namespace+"/"+c.Name+map[bool]string{true: " (deleted)"}[c.Deleted])
			}
			if diff := cmp.Diff(tt.pods, gotPods); diff != "" {
				t.Errorf("pod rows (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.cms, gotCMs); diff != "" {
				t.Errorf("configmap rows (-want +got):\n%s", diff)
			}
			if want, _ := store.Head(ctx, store.DB()); head != want || head2 != want {
				t.Errorf("rows as of %d and %d, want the head %d", head, head2, want)
			}
		})
	}
}
