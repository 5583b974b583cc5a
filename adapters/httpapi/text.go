package httpapi

import (
	"bytes"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// checkRequestText refuses a path or query parameter holding a NUL
// character or bytes that are not UTF-8: herd keeps names and filters as
// text, which PostgreSQL refuses to hold with either, and SQLite would
// hold a name no client could type back. 400 names the parameter.
func checkRequestText(r *http.Request) error {
	if bad(r.URL.Path) {
		return badRequest("the path %q holds a NUL character or bytes that are not UTF-8", strings.ToValidUTF8(r.URL.Path, "\uFFFD"))
	}
	for name, values := range r.URL.Query() {
		if bad(name) {
			return badRequest("a query parameter's name holds a NUL character or bytes that are not UTF-8")
		}
		for _, v := range values {
			if bad(v) {
				return badRequest("the query parameter %s holds a NUL character or bytes that are not UTF-8", name)
			}
		}
	}
	return nil
}

// bad says whether s is no text herd stores: a NUL, or not UTF-8.
func bad(s string) bool { return strings.IndexByte(s, 0) >= 0 || !utf8.ValidString(s) }

// mayHoldBadText says whether a JSON body can decode to a string with a
// NUL (the escape \u0000) or bytes that are not UTF-8, so that only such
// bodies are walked; a heartbeat's body almost never is.
func mayHoldBadText(data []byte) bool {
	// JSON's escape is a lower-case u, and 0 has no case.
	return !utf8.Valid(data) || bytes.Contains(data, []byte(`\u0000`))
}

// cleanText makes every string of the decoded body v (a pointer) text
// herd can store on either engine, as Kubernetes would take it: bytes
// that are not UTF-8 become U+FFFD, as apimachinery's JSON decoding
// (encoding/json's) turns them, whatever the body's media type; a NUL
// character, which JSON lets through but PostgreSQL does not store, is
// refused with 422 naming the field, so that both engines answer alike.
func cleanText(v any) error {
	if storable(reflect.ValueOf(v)) {
		// Almost every body: nothing to repair or refuse, found without
		// the walk's paths and copies (a kubelet's protobuf Node cost
		// ~125 allocations there).
		return nil
	}
	path, ok := walkStrings(reflect.ValueOf(v), "")
	if ok {
		return nil
	}
	kind, name := reflect.Indirect(reflect.ValueOf(v)).Type().Name(), ""
	if obj, isObj := v.(runtime.Object); isObj {
		kind = kindOf(obj)
		if m, err := meta.Accessor(obj); err == nil {
			name = m.GetName()
		}
	}
	return apierrors.NewInvalid(schema.GroupKind{Kind: kind}, name, field.ErrorList{
		field.Invalid(field.NewPath(strings.TrimPrefix(path, ".")), "\\u0000", "must not contain a NUL character"),
	})
}

// storable says whether every string walkStrings would visit in v is
// already text herd stores (UTF-8 without a NUL), so that the walk would
// change nothing and find nothing. It changes nothing, builds no path and
// allocates nothing for a string, a field or a slice's element; a map
// with entries costs a holder for its keys and one for its values.
func storable(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		return v.IsNil() || storable(v.Elem())
	case reflect.String:
		return !bad(v.String())
	case reflect.Struct:
		for i := range v.NumField() {
			// What walkStrings skips: an unexported field (reached
			// only through exported ones, so CanInterface says just
			// that, without StructField's copy).
			if f := v.Field(i); f.CanInterface() && !storable(f) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return true // bytes, not text
		}
		for i := range v.Len() {
			if !storable(v.Index(i)) {
				return false
			}
		}
	case reflect.Map:
		return storableMap(v)
	}
	return true
}

// storableMap is storable for a map: its string keys and its values.
func storableMap(v reflect.Value) bool {
	if v.Len() == 0 {
		return true
	}
	if m, ok := v.Interface().(map[string]string); ok {
		// Labels, annotations, a ConfigMap's data: no holders.
		for k, e := range m {
			if bad(k) || bad(e) {
				return false
			}
		}
		return true
	}
	t := v.Type()
	key, elem := reflect.New(t.Key()).Elem(), reflect.New(t.Elem()).Elem()
	for it := v.MapRange(); it.Next(); {
		key.SetIterKey(it)
		if key.Kind() == reflect.String && bad(key.String()) {
			return false
		}
		elem.SetIterValue(it)
		if !storable(elem) {
			return false
		}
	}
	return true
}

// walkStrings repairs v's strings in place and returns the path of the
// first one holding a NUL, or ok.
func walkStrings(v reflect.Value, path string) (string, bool) {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return "", true
		}
		return walkStrings(v.Elem(), path)
	case reflect.String:
		s := v.String()
		if strings.IndexByte(s, 0) >= 0 {
			return path, false
		}
		if !utf8.ValidString(s) && v.CanSet() {
			v.SetString(strings.ToValidUTF8(s, "\uFFFD"))
		}
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			p := path
			if name := jsonName(f); name != "" {
				p += "." + name
			}
			if p, ok := walkStrings(v.Field(i), p); !ok {
				return p, false
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			return "", true // bytes, not text
		}
		for i := range v.Len() {
			if p, ok := walkStrings(v.Index(i), path+"["+strconv.Itoa(i)+"]"); !ok {
				return p, false
			}
		}
	case reflect.Map:
		return walkMap(v, path)
	}
	return "", true
}

// walkMap is walkStrings for a map, whose entries are not addressable:
// each repaired one is stored again under its repaired key.
func walkMap(v reflect.Value, path string) (string, bool) {
	for _, k := range v.MapKeys() {
		p := path + "[" + strconv.Quote(strings.ToValidUTF8(k.String(), "\uFFFD")) + "]"
		if k.Kind() == reflect.String && strings.IndexByte(k.String(), 0) >= 0 {
			return p, false
		}
		elem := reflect.New(v.Type().Elem()).Elem()
		elem.Set(v.MapIndex(k))
		if p, ok := walkStrings(elem, p); !ok {
			return p, false
		}
		key := k
		if k.Kind() == reflect.String && !utf8.ValidString(k.String()) {
			key = reflect.New(k.Type()).Elem()
			key.SetString(strings.ToValidUTF8(k.String(), "\uFFFD"))
			v.SetMapIndex(k, reflect.Value{})
		}
		v.SetMapIndex(key, elem)
	}
	return "", true
}

// jsonName is a field's name as its JSON tag gives it, or the Go name.
func jsonName(f reflect.StructField) string {
	tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	switch {
	case tag == "-":
		return f.Name
	case tag != "":
		return tag
	case f.Anonymous:
		return ""
	}
	return f.Name
}
