package domain

import (
	"maps"
	"reflect"
	"slices"
	"sync"
	"time"
)

// semanticEqual reports whether a and b hold the same values, as
// apimachinery's equality.Semantic.DeepEqual does for API objects: like
// reflect.DeepEqual, except that a nil map or slice equals an empty one
// (a client that sends `labels: {}` changes nothing). It decides for every
// kind on the object model whether a write is a no-op, instead of an
// equal method per kind. The domain imports no Kubernetes module (see
// TestImportsPointInward), hence this walk of its own.
//
// A type with its own comparison (fastPaths) is compared by it instead.
func semanticEqual[T any](a, b T) bool {
	if eq := fastPathsOf[T]().equal; eq != nil {
		return eq(a, b)
	}
	return semanticEqualWalk(a, b)
}

// semanticEqualWalk is semanticEqual's reflective walk, apart so that a
// and b reach the heap only when it runs.
func semanticEqualWalk[T any](a, b T) bool {
	return equalValues(reflect.ValueOf(&a).Elem(), reflect.ValueOf(&b).Elem())
}

func equalValues(a, b reflect.Value) bool {
	if !a.IsValid() || !b.IsValid() {
		return a.IsValid() == b.IsValid()
	}
	if a.Type() != b.Type() {
		return false
	}
	switch a.Kind() {
	case reflect.Map:
		if a.Len() != b.Len() {
			return false
		}
		for _, k := range a.MapKeys() {
			bv := b.MapIndex(k)
			if !bv.IsValid() || !equalValues(a.MapIndex(k), bv) {
				return false
			}
		}
		return true
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !equalValues(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Array:
		for i := range a.Len() {
			if !equalValues(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Pointer, reflect.Interface:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return equalValues(a.Elem(), b.Elem())
	case reflect.Struct:
		if a.Type() == timeType && a.CanInterface() && b.CanInterface() {
			return a.Interface().(time.Time).Equal(b.Interface().(time.Time))
		}
		if hasEqualMethod(a.Type()) {
			// time.Time and its like say themselves what equal means
			// (the same instant, whatever the location).
			return a.MethodByName("Equal").Call([]reflect.Value{b})[0].Bool()
		}
		for i := range a.NumField() {
			if !equalValues(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	default:
		if a.CanInterface() && b.CanInterface() {
			return a.Interface() == b.Interface()
		}
		return reflect.DeepEqual(a, b)
	}
}

// timeType is time.Time, the struct with an Equal method the model
// compares most.
var timeType = reflect.TypeFor[time.Time]()

// equalMethods holds hasEqualMethod's answer for each type asked about.
var equalMethods sync.Map

// hasEqualMethod reports whether t has a method Equal(t) bool.
func hasEqualMethod(t reflect.Type) bool {
	if has, ok := equalMethods.Load(t); ok {
		return has.(bool)
	}
	m, ok := t.MethodByName("Equal")
	has := ok && m.Type.NumIn() == 2 && m.Type.In(1) == t && m.Type.NumOut() == 1 && m.Type.Out(0).Kind() == reflect.Bool
	equalMethods.Store(t, has)
	return has
}

// deepCopy returns a copy of v that shares no map, slice or pointer with
// it; empty maps and slices come back nil. It replaces a clone method per
// kind on the object model: a field added to a spec is copied without
// anyone remembering to.
//
// A type with its own copy (fastPaths) is copied by it instead.
func deepCopy[T any](v T) T {
	if cp := fastPathsOf[T]().copy; cp != nil {
		return cp(v)
	}
	return deepCopyWalk(v)
}

// deepCopyWalk is deepCopy's reflective walk, apart so that v reaches
// the heap only when it runs.
func deepCopyWalk[T any](v T) T {
	out := copyValue(reflect.ValueOf(&v).Elem())
	return out.Interface().(T)
}

// copyValue is v copied as deepCopy says; a value with nothing to copy
// deeply (a string, a number, a time) is v itself, which its caller's Set
// copies.
func copyValue(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Map:
		if v.Len() == 0 {
			return reflect.Zero(v.Type())
		}
		m := reflect.MakeMapWithSize(v.Type(), v.Len())
		iter := v.MapRange()
		for iter.Next() {
			m.SetMapIndex(iter.Key(), copyValue(iter.Value()))
		}
		return m
	case reflect.Slice:
		if v.Len() == 0 {
			return reflect.Zero(v.Type())
		}
		s := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		if !needsDeepCopy(v.Type().Elem()) {
			reflect.Copy(s, v)
			return s
		}
		for i := range v.Len() {
			s.Index(i).Set(copyValue(v.Index(i)))
		}
		return s
	case reflect.Pointer:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		p := reflect.New(v.Type().Elem())
		p.Elem().Set(copyValue(v.Elem()))
		return p
	case reflect.Struct:
		if !needsDeepCopy(v.Type()) {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(v) // unexported fields (time.Time's) are copied as they are
		for i := range v.NumField() {
			if f := out.Field(i); f.CanSet() && needsDeepCopy(f.Type()) {
				f.Set(copyValue(v.Field(i)))
			}
		}
		return out
	case reflect.Array:
		if !needsDeepCopy(v.Type()) {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			out.Index(i).Set(copyValue(v.Index(i)))
		}
		return out
	case reflect.Interface:
		if v.IsNil() {
			return reflect.Zero(v.Type())
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(copyValue(v.Elem()))
		return out
	}
	return v
}

// deepCopyNeeded holds needsDeepCopy's answer for each type asked about.
var deepCopyNeeded sync.Map

// needsDeepCopy reports whether copyValue has anything to do for a value
// of type t: a map, slice, pointer or interface it can reach through
// exported fields (those of unexported fields are copied as they are).
func needsDeepCopy(t reflect.Type) bool {
	if n, ok := deepCopyNeeded.Load(t); ok {
		return n.(bool)
	}
	var n bool
	switch t.Kind() {
	case reflect.Map, reflect.Slice, reflect.Pointer, reflect.Interface:
		n = true
	case reflect.Array:
		n = needsDeepCopy(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && needsDeepCopy(f.Type) {
				n = true
				break
			}
		}
	}
	deepCopyNeeded.Store(t, n)
	return n
}

// fastPaths are a type's own copy, comparison and JSON, which the object
// model uses in place of its reflective walks (deepCopy, semanticEqual)
// and of encoding/json (marshalLayout) when the type has them; a nil one
// is the generic path. Each must do exactly what the generic path does:
// copy sharing nothing and giving nil for empty, compare with nil equal
// to empty, write the bytes encoding/json writes
// (TestFastPathsDoWhatTheGenericPathsDo).
type fastPaths[T any] struct {
	copy       func(T) T
	equal      func(a, b T) bool
	appendJSON func(b []byte, v T) ([]byte, error)
}

// The interfaces through which a type offers its fast paths. Each
// returns the function, so that it is found once per type (on its zero
// value) and called without putting the value in an interface.
type (
	modelCopier[T any]   interface{ modelCopy() func(T) T }
	modelEqualer[T any]  interface{ modelEqual() func(a, b T) bool }
	modelAppender[T any] interface {
		modelAppendJSON() func(b []byte, v T) ([]byte, error)
	}
)

// fastPathsByType holds the fastPaths of each type asked for, by its
// reflect.Type, as *fastPaths[T].
var fastPathsByType sync.Map

// fastPathsOf is T's fast paths: its own, offered by the interfaces
// above, or the domain's for the maps and lists every object's metadata
// holds.
func fastPathsOf[T any]() *fastPaths[T] {
	t := reflect.TypeFor[T]()
	if fp, ok := fastPathsByType.Load(t); ok {
		return fp.(*fastPaths[T])
	}
	fp := &fastPaths[T]{}
	var zero T
	switch z := any(&fp).(type) {
	case **fastPaths[map[string]string]:
		*z = &fastPaths[map[string]string]{copy: cloneStrings, equal: maps.Equal[map[string]string, map[string]string]}
	case **fastPaths[[]string]:
		*z = &fastPaths[[]string]{copy: cloneSlice[string], equal: slices.Equal[[]string]}
	case **fastPaths[[]OwnerReference]:
		*z = &fastPaths[[]OwnerReference]{copy: cloneSlice[OwnerReference], equal: slices.Equal[[]OwnerReference]}
	case **fastPaths[*time.Time]:
		*z = &fastPaths[*time.Time]{copy: clonePtr[time.Time], equal: equalTime, appendJSON: appendJSONTimePtr}
	default:
		if c, ok := any(zero).(modelCopier[T]); ok {
			fp.copy = c.modelCopy()
		}
		if e, ok := any(zero).(modelEqualer[T]); ok {
			fp.equal = e.modelEqual()
		}
		if a, ok := any(zero).(modelAppender[T]); ok {
			fp.appendJSON = a.modelAppendJSON()
		}
	}
	actual, _ := fastPathsByType.LoadOrStore(t, fp)
	return actual.(*fastPaths[T])
}
