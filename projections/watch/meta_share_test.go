package watch

import (
	"strings"
	"testing"
	"unsafe"

	"herd/events"
)

// keyFields is a value's fields, comparable as herd's own kinds' are.
type keyFields struct{ namespace, name string }

func (f keyFields) Has(field string) bool { return field == "metadata.name" }
func (f keyFields) Get(field string) string {
	if field == "metadata.name" {
		return f.name
	}
	return ""
}

// TestVersionsOfAnObjectShareTheirMeta: the versions of an object the hub
// folds hold one copy of its key and its fields while they do not change,
// though the kind builds them anew for every event, and their own once
// they do.
func TestVersionsOfAnObjectShareTheirMeta(t *testing.T) {
	k := &Kind[string]{
		Resource: "things", Prefix: "thing/",
		Fold: func(s string, rec events.Record) (string, error) { return string(rec.Payload), nil },
		Meta: func(s string) (Meta, bool) {
			ns, _, _ := strings.Cut(s, ":")
			return Meta{Key: strings.Clone("ns-" + ns + "/thing"), Fields: keyFields{namespace: strings.Clone(ns), name: "thing"}}, true
		},
	}
	fold := func(prev *Object, payload string) *Object {
		o, err := k.fold(prev, events.Record{Stream: "thing/ns/thing", Position: 1, Payload: []byte(payload)})
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	first := fold(nil, "a:1")
	second := fold(first, "a:2")
	if unsafe.StringData(first.Meta.Key) != unsafe.StringData(second.Meta.Key) {
		t.Error("two versions of an object hold its key twice")
	}
	if !sameBox(first.Meta.Fields, second.Meta.Fields) {
		t.Error("two versions of an object hold its fields twice")
	}
	moved := fold(second, "b:3")
	if moved.Meta.Key != "ns-b/thing" || moved.Meta.Fields.(keyFields).namespace != "b" {
		t.Errorf("a version whose key and fields changed holds %q and %+v", moved.Meta.Key, moved.Meta.Fields)
	}
	// Fields kept as a map are never compared, and never shared.
	k.Meta = func(s string) (Meta, bool) { return Meta{Key: s, Fields: mapFields{"metadata.name": s}}, true }
	fold(fold(nil, "c"), "c")
}

// mapFields are fields kept in a map, as fields.Set keeps them.
type mapFields map[string]string

func (f mapFields) Has(field string) bool   { _, ok := f[field]; return ok }
func (f mapFields) Get(field string) string { return f[field] }

// sameBox reports whether two interfaces hold the very same boxed value.
func sameBox(a, b Fields) bool {
	type iface struct{ typ, data unsafe.Pointer }
	return (*iface)(unsafe.Pointer(&a)).data == (*iface)(unsafe.Pointer(&b)).data
}
