package watch

import (
	"reflect"
	"sync/atomic"
	"time"
	"unsafe"
)

// objectOverhead is an Object's own struct, which every entry holds.
var objectOverhead = int64(unsafe.Sizeof(Object{}))

// entrySize is what e holds in memory beyond what the ring's array holds:
// the new version of its object, measured from the object itself (its
// state's strings, slices, maps and what its pointers reach), and the
// struct of the DELETED event's copy. A node that reports a thousand
// conditions holds a thousand conditions in every version: counted by a
// guess from the event's size, it was counted as one. The previous
// version is counted by its own entry, or is the hub's latest. Renderings
// are counted as they are made (Object.Rendered).
func entrySize(e entry) int64 {
	size := objectOverhead
	if v := reflect.ValueOf(e.cur.state); v.IsValid() {
		size += int64(v.Type().Size()) + deepSize(v)
	}
	if e.gone != nil {
		size += objectOverhead
	}
	return size
}

// account counts the renderings of e's objects in held.
func (e entry) account(held *atomic.Int64) {
	e.cur.account(held)
	if e.gone != nil {
		e.gone.account(held)
	}
}

// deepSize is the memory v refers to beyond its own inline bytes: string
// bytes, slices' arrays, maps' entries and what pointers and interfaces
// point at, each pointer followed once. Parts shared with another version
// of the object are counted again: the bound errs on the side of memory.
func deepSize(v reflect.Value) int64 {
	return (&sizer{seen: map[uintptr]bool{}}).indirect(v)
}

type sizer struct{ seen map[uintptr]bool }

// mapEntryOverhead is, roughly, what a Go map spends per entry beyond its
// key and value: the tophash byte and the group's spare slots.
const mapEntryOverhead = 8

// locationType is time.Location's pointer: a time's zone is shared by
// every time in it, not held by the object.
var locationType = reflect.TypeFor[*time.Location]()

// indirect is the bytes v refers to outside itself.
func (s *sizer) indirect(v reflect.Value) int64 {
	if v.Type() == locationType {
		return 0
	}
	switch v.Kind() {
	case reflect.String:
		return int64(v.Len())
	case reflect.Pointer:
		if v.IsNil() || s.visited(v.Pointer()) {
			return 0
		}
		e := v.Elem()
		return int64(e.Type().Size()) + s.indirect(e)
	case reflect.Interface:
		if v.IsNil() {
			return 0
		}
		e := v.Elem()
		return int64(e.Type().Size()) + s.indirect(e)
	case reflect.Slice:
		if v.IsNil() || s.visited(v.Pointer()) {
			return 0
		}
		n := int64(v.Cap()) * int64(v.Type().Elem().Size())
		if hasIndirect(v.Type().Elem()) {
			for i := range v.Len() {
				n += s.indirect(v.Index(i))
			}
		}
		return n
	case reflect.Map:
		if v.IsNil() || s.visited(v.Pointer()) {
			return 0
		}
		t := v.Type()
		n := int64(v.Len()) * (int64(t.Key().Size()+t.Elem().Size()) + mapEntryOverhead)
		if hasIndirect(t.Key()) || hasIndirect(t.Elem()) {
			// One key and one value, set in place at each entry: a
			// copy of each (it.Key, it.Value) was an allocation apiece.
			k, e := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
			for it := v.MapRange(); it.Next(); {
				k.SetIterKey(it)
				e.SetIterValue(it)
				n += s.indirect(k) + s.indirect(e)
			}
		}
		return n
	case reflect.Struct:
		var n int64
		for i := range v.NumField() {
			n += s.indirect(v.Field(i))
		}
		return n
	case reflect.Array:
		var n int64
		if hasIndirect(v.Type().Elem()) {
			for i := range v.Len() {
				n += s.indirect(v.Index(i))
			}
		}
		return n
	}
	return 0
}

func (s *sizer) visited(p uintptr) bool {
	if s.seen[p] {
		return true
	}
	s.seen[p] = true
	return false
}

// hasIndirect reports whether a value of t may refer to memory outside
// itself.
func hasIndirect(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.String, reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map:
		return true
	case reflect.Struct:
		for i := range t.NumField() {
			if hasIndirect(t.Field(i).Type) {
				return true
			}
		}
	case reflect.Array:
		return hasIndirect(t.Elem())
	}
	return false
}
