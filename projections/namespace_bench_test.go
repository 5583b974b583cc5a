package projections

import (
	"context"
	"fmt"
	"testing"

	"herd/domain"
)

// BenchmarkNamespaceAndDeviceViews measures the namespace view's and the
// device binding view's reads on a SQLite file — a namespace by name, the
// check every namespaced create makes, the list and a page of 64
// namespaces, a binding by name and the names bound to an address (a
// Pico's every config read) — and a binding written and released, a
// commit each.
func BenchmarkNamespaceAndDeviceViews(b *testing.B) {
	w, store, _ := newWriter(b)
	ctx := context.Background()
	for i := range 64 {
		name := fmt.Sprintf("ns-%02d", i)
		if _, err := w.NamespaceCommands().Execute(ctx, domain.Key{Name: name}, domain.CreateNamespace{Meta: domain.ObjectMeta{Name: name, UID: "uid-" + name}}); err != nil {
			b.Fatal(err)
		}
	}
	device := func(name string, cmd domain.DeviceCommand) {
		if _, err := w.DeviceBindingCommands().Execute(ctx, domain.Key{Name: name}, cmd); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 8 {
		device(fmt.Sprintf("pico-%02d", i), domain.BindDevice{Name: fmt.Sprintf("pico-%02d", i), Address: "127.0.0.3"})
	}
	namespaces, bindings := NewNamespaceView(store.Log()), NewDeviceBindingView(store.Log())
	reads := []struct {
		name string
		read func() error
	}{
		{"NamespaceGet", func() error { _, err := namespaces.Get(ctx, "ns-31"); return err }},
		{"NamespaceAcceptsObjects", func() error { return namespaces.AcceptsObjects(ctx, "ns-31") }},
		{"NamespaceList", func() error { _, _, err := namespaces.List(ctx); return err }},
		{"NamespaceRows", func() error { _, _, err := namespaces.Rows(ctx, "ns-15", 16); return err }},
		{"DeviceBindingGet", func() error { _, err := bindings.Get(ctx, "pico-03"); return err }},
		{"DeviceBindingBoundTo", func() error { _, err := bindings.BoundTo(ctx, "127.0.0.3"); return err }},
	}
	for _, r := range reads {
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := r.read(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("DeviceBindingWrite", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if i%2 == 0 {
				device("pico-99", domain.BindDevice{Name: "pico-99", Address: "127.0.0.4"})
			} else {
				device("pico-99", domain.ReleaseDevice{})
			}
			i++
		}
	})
}
