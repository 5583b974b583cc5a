package projections

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/domain"
	"herd/events"
)

// doConfigMap runs one command on a ConfigMap through the writer, at its
// clock's time.
func doConfigMap(tb testing.TB, w *Writer, ns, name string, cmd domain.ConfigMapCommand) (domain.ConfigMap, error) {
	tb.Helper()
	return w.ConfigMapCommands().Execute(context.Background(), domain.Key{Namespace: ns, Name: name}, cmd)
}

func TestConfigMapViewReadsWhatWasWritten(t *testing.T) {
	w, store, clk := newWriter(t)
	ctx := t.Context()
	view := NewConfigMapView(store.Log())
	labels, data := map[string]string{"app": "pico"}, map[string]string{"interval": "10"}
	for _, c := range []struct{ ns, name string }{{"default", "pico-config"}, {"default", "other"}, {"lab", "pico-config"}} {
		if _, err := doConfigMap(t, w, c.ns, c.name, domain.CreateConfigMap{
			Meta: domain.ObjectMeta{Namespace: c.ns, Name: c.name, Labels: labels}, Spec: domain.ConfigMapSpec{Data: data},
		}); err != nil {
			t.Fatal(err)
		}
	}
	created, err := view.Get(ctx, "default", "pico-config")
	if err != nil {
		t.Fatal(err)
	}
	clk.Step(time.Minute)
	updated, err := doConfigMap(t, w, "default", "pico-config", domain.Precondition[domain.ConfigMapCommand]{ResourceVersion: created.ResourceVersion, Command: domain.UpdateConfigMap{
		Spec: domain.ConfigMapSpec{Data: map[string]string{"interval": "5"}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := store.Head(ctx, store.DB())
	if updated.ResourceVersion != head || updated.Version != 2 || !updated.CreatedAt.Equal(t0) {
		t.Errorf("after update: rv %d (head %d), version %d, created %v", updated.ResourceVersion, head, updated.Version, updated.CreatedAt)
	}
	got, err := view.Get(ctx, "default", "pico-config")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(updated, got); diff != "" {
		t.Errorf("view differs from the writer's answer (-writer +view):\n%s", diff)
	}

	// A stale resourceVersion appends nothing.
	if _, err := doConfigMap(t, w, "default", "pico-config", domain.Precondition[domain.ConfigMapCommand]{ResourceVersion: created.ResourceVersion, Command: domain.UpdateConfigMap{
		Spec: domain.ConfigMapSpec{Data: map[string]string{"interval": "1"}},
	}}); !errors.Is(err, domain.ErrConflict) {
		t.Errorf("stale update: %v, want a conflict", err)
	}
	if h, _ := store.Head(ctx, store.DB()); h != head {
		t.Errorf("a rejected update moved the head from %d to %d", head, h)
	}

	tests := []struct {
		namespace string
		want      []string
	}{
		{"", []string{"default/other", "default/pico-config", "lab/pico-config"}},
		{"default", []string{"default/other", "default/pico-config"}},
		{"nowhere", nil},
	}
	for _, tt := range tests {
		list, rv, err := view.List(ctx, tt.namespace)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, cm := range list {
			names = append(names, cm.Namespace+"/"+cm.Name)
		}
		if diff := cmp.Diff(tt.want, names); diff != "" || rv != head {
			t.Errorf("List(%q): rv %d (head %d), names (-want +got):\n%s", tt.namespace, rv, head, diff)
		}
	}

	if _, err := doConfigMap(t, w, "default", "other", domain.DeleteConfigMap{}); err != nil {
		t.Fatal(err)
	}
	if _, err := view.Get(ctx, "default", "other"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("get after delete: %v, want not found", err)
	}
	again, err := doConfigMap(t, w, "default", "other", domain.CreateConfigMap{Meta: domain.ObjectMeta{Namespace: "default", Name: "other"}})
	if err != nil || again.Version != 3 {
		t.Errorf("re-create after delete: version %d, %v; want the stream to go on at 3", again.Version, err)
	}
}

func TestRebuildEqualsLiveConfigMapsAndBindings(t *testing.T) {
	w, store, _ := newWriter(t)
	ctx := t.Context()
	mustCM := func(ns, name string, cmd domain.ConfigMapCommand) {
		t.Helper()
		if _, err := doConfigMap(t, w, ns, name, cmd); err != nil {
			t.Fatal(err)
		}
	}
	mustCM("default", "a", domain.CreateConfigMap{Meta: domain.ObjectMeta{Namespace: "default", Name: "a"}, Spec: domain.ConfigMapSpec{
		Data: map[string]string{"k": "v"}, BinaryData: map[string][]byte{"b": {}, "c": {1, 2}},
	}})
	mustCM("default", "a", domain.UpdateConfigMap{Spec: domain.ConfigMapSpec{
		Data: map[string]string{"k": "v", "k2": "v2"}, BinaryData: map[string][]byte{"b": {}, "c": {1, 2}},
	}})
	mustCM("default", "b", domain.CreateConfigMap{Meta: domain.ObjectMeta{Namespace: "default", Name: "b"}})
	mustCM("default", "b", domain.DeleteConfigMap{})
	for _, c := range []struct {
		name string
		cmd  domain.DeviceCommand
	}{
		{"pico-01", domain.BindDevice{Name: "pico-01", Address: "127.0.0.3"}},
		{"pico-02", domain.BindDevice{Name: "pico-02", Address: "127.0.0.3"}},
		{"pico-02", domain.ReleaseDevice{}},
	} {
		if _, err := w.DeviceBindingCommands().Execute(ctx, domain.Key{Name: c.name}, c.cmd); err != nil {
			t.Fatal(err)
		}
	}
	diff, _, err := Verify(ctx, store, filepath.Join(t.TempDir(), "scratch.db"), events.Config{}, RebuildOptions{BatchSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	if diff != nil {
		t.Fatalf("rebuilt views differ from live ones: %s", diff)
	}

	bindings := NewDeviceBindingView(store.Log())
	bound, err := bindings.BoundTo(ctx, "127.0.0.3")
	if err != nil {
		t.Fatal(err)
	}
	if len(bound) != 1 || bound[0].Name != "pico-01" {
		t.Errorf("bound to 127.0.0.3: %+v, want pico-01 alone", bound)
	}
	if b, _ := bindings.Get(ctx, "pico-02"); b.Bound() || b.Version != 2 {
		t.Errorf("released binding: %+v", b)
	}
	if b, _ := bindings.Get(ctx, "never"); b.Bound() || b.Name != "never" {
		t.Errorf("unknown binding: %+v", b)
	}
}
