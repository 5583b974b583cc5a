package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// layoutFields are the values of one record of a kind on the model (its
// row, or one of its events), by the names a layout may give them (those
// of objectWire), for marshalLayout to write without a map of them or a
// reflective walk. has says which of them the record has: a layout that
// names another is refused.
type layoutFields struct {
	has                        fieldSet
	namespace, name, uid       string
	reason                     string
	labels, annotations        map[string]string
	finalizers, changed        []string
	owners                     []OwnerReference
	generation                 int64
	version, resourceVersion   int64
	createdAt, at              time.Time
	terminatingSince           time.Time
	deletionRequestedAt        *time.Time
	deletionGracePeriodSeconds *int64
	deleted, orphan            bool
	// own are the fields a kind keeps beside the object (a DaemonSet's
	// template generation), by their names, written as encoding/json
	// writes them.
	own map[string]any
}

// fieldSet is a set of the fields of layoutFields.
type fieldSet uint32

const (
	fieldNamespace fieldSet = 1 << iota
	fieldName
	fieldUID
	fieldReason
	fieldLabels
	fieldAnnotations
	fieldFinalizers
	fieldChanged
	fieldOwners
	fieldGeneration
	fieldVersion
	fieldResourceVersion
	fieldCreatedAt
	fieldAt
	fieldTerminatingSince
	fieldDeletionRequestedAt
	fieldDeletionGracePeriodSeconds
	fieldDeleted
	fieldOrphan
)

// The fields each record of the model has.
const (
	fieldsOfState = fieldNamespace | fieldName | fieldUID | fieldLabels | fieldAnnotations | fieldFinalizers |
		fieldOwners | fieldGeneration | fieldCreatedAt | fieldDeletionRequestedAt | fieldDeletionGracePeriodSeconds |
		fieldDeleted | fieldOrphan | fieldVersion | fieldResourceVersion | fieldTerminatingSince
	fieldsOfCreated = fieldNamespace | fieldName | fieldUID | fieldLabels | fieldAnnotations | fieldFinalizers |
		fieldOwners | fieldReason | fieldAt
	fieldsOfUpdated         = fieldLabels | fieldAnnotations | fieldOwners | fieldGeneration | fieldChanged | fieldAt
	fieldsOfMetadataChanged = fieldLabels | fieldAnnotations | fieldOwners | fieldChanged | fieldAt
)

// fieldNamed is the field of layoutFields a layout names name, or 0 for
// none of them (the spec, the status, or a kind's own).
func fieldNamed(name string) fieldSet {
	switch name {
	case "namespace":
		return fieldNamespace
	case "name":
		return fieldName
	case "uid":
		return fieldUID
	case "reason":
		return fieldReason
	case "labels":
		return fieldLabels
	case "annotations":
		return fieldAnnotations
	case "finalizers":
		return fieldFinalizers
	case "changed":
		return fieldChanged
	case "owners":
		return fieldOwners
	case "generation":
		return fieldGeneration
	case "version":
		return fieldVersion
	case "resourceVersion":
		return fieldResourceVersion
	case "createdAt":
		return fieldCreatedAt
	case "at":
		return fieldAt
	case "terminatingSince":
		return fieldTerminatingSince
	case "deletionRequestedAt":
		return fieldDeletionRequestedAt
	case "deletionGracePeriodSeconds":
		return fieldDeletionGracePeriodSeconds
	case "deleted":
		return fieldDeleted
	case "orphan":
		return fieldOrphan
	}
	return 0
}

// empty reports whether field f is empty as encoding/json's ",omitempty"
// means it (a time never is).
func (v *layoutFields) empty(f fieldSet) bool {
	switch f {
	case fieldNamespace:
		return v.namespace == ""
	case fieldName:
		return v.name == ""
	case fieldUID:
		return v.uid == ""
	case fieldReason:
		return v.reason == ""
	case fieldLabels:
		return len(v.labels) == 0
	case fieldAnnotations:
		return len(v.annotations) == 0
	case fieldFinalizers:
		return len(v.finalizers) == 0
	case fieldChanged:
		return len(v.changed) == 0
	case fieldOwners:
		return len(v.owners) == 0
	case fieldGeneration:
		return v.generation == 0
	case fieldVersion:
		return v.version == 0
	case fieldResourceVersion:
		return v.resourceVersion == 0
	case fieldDeletionRequestedAt:
		return v.deletionRequestedAt == nil
	case fieldDeletionGracePeriodSeconds:
		return v.deletionGracePeriodSeconds == nil
	case fieldDeleted:
		return !v.deleted
	case fieldOrphan:
		return !v.orphan
	}
	return false
}

// appendField writes field f's value as encoding/json would.
func (v *layoutFields) appendField(b []byte, f fieldSet) ([]byte, error) {
	switch f {
	case fieldNamespace:
		return appendJSONString(b, v.namespace), nil
	case fieldName:
		return appendJSONString(b, v.name), nil
	case fieldUID:
		return appendJSONString(b, v.uid), nil
	case fieldReason:
		return appendJSONString(b, v.reason), nil
	case fieldLabels:
		return appendJSONStringMap(b, v.labels), nil
	case fieldAnnotations:
		return appendJSONStringMap(b, v.annotations), nil
	case fieldFinalizers:
		return appendJSONStrings(b, v.finalizers), nil
	case fieldChanged:
		return appendJSONStrings(b, v.changed), nil
	case fieldOwners:
		return appendJSONOwners(b, v.owners), nil
	case fieldGeneration:
		return strconv.AppendInt(b, v.generation, 10), nil
	case fieldVersion:
		return strconv.AppendInt(b, v.version, 10), nil
	case fieldResourceVersion:
		return strconv.AppendInt(b, v.resourceVersion, 10), nil
	case fieldCreatedAt:
		return appendJSONTime(b, v.createdAt)
	case fieldAt:
		return appendJSONTime(b, v.at)
	case fieldTerminatingSince:
		return appendJSONTime(b, v.terminatingSince)
	case fieldDeletionRequestedAt:
		if v.deletionRequestedAt == nil {
			return append(b, "null"...), nil
		}
		return appendJSONTime(b, *v.deletionRequestedAt)
	case fieldDeletionGracePeriodSeconds:
		if v.deletionGracePeriodSeconds == nil {
			return append(b, "null"...), nil
		}
		return strconv.AppendInt(b, *v.deletionGracePeriodSeconds, 10), nil
	case fieldDeleted:
		return strconv.AppendBool(b, v.deleted), nil
	case fieldOrphan:
		return strconv.AppendBool(b, v.orphan), nil
	}
	return b, fmt.Errorf("domain: no field %d", f)
}

// marshalLayout writes the fields layout names, in its order, taking each
// value from v, spec or status (nil for a record without one) and leaving
// out an empty one where the layout says ",omitempty" (empty as
// encoding/json means it). With inline, the spec's own fields stand where
// "spec" does. It writes what encoding/json would write of each value,
// byte for byte (TestMarshalLayoutWritesWhatEncodingJSONWrites), without
// a map of the values: the metadata through appenders of its own, the
// spec and the status through their type's appender when it has one
// (fastPaths) and encoding/json otherwise.
//
// It writes into a buffer it keeps for the next (layoutBuffers) and
// returns a copy of just the record's length.
func marshalLayout[S, St any](layout []string, inline bool, v *layoutFields, spec *S, status *St) ([]byte, error) {
	scratch := layoutBuffers.Get().(*[]byte)
	buf, err := appendLayout((*scratch)[:0], layout, inline, v, spec, status)
	var out []byte
	if err == nil {
		out = append(make([]byte, 0, len(buf)), buf...)
	}
	if cap(buf) <= maxKeptLayoutBuffer {
		*scratch = buf
		layoutBuffers.Put(scratch)
	}
	return out, err
}

// layoutBuffers are marshalLayout's buffers, *[]byte; one that grew past
// maxKeptLayoutBuffer (a record of a large ConfigMap) is not kept.
var layoutBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 1024); return &b }}

const maxKeptLayoutBuffer = 64 << 10

// appendLayout is marshalLayout writing into buf.
func appendLayout[S, St any](buf []byte, layout []string, inline bool, v *layoutFields, spec *S, status *St) ([]byte, error) {
	buf = append(buf, '{')
	for _, tok := range layout {
		name, opt, _ := strings.Cut(tok, ",")
		omitEmpty := opt == "omitempty"
		mark := len(buf)
		if len(buf) > 1 {
			buf = append(buf, ',')
		}
		if name != "spec" || !inline {
			buf = append(appendJSONString(buf, name), ':')
		}
		var err error
		switch f := fieldNamed(name); {
		case f != 0:
			if v.has&f == 0 {
				return nil, fmt.Errorf("domain: layout names %q, which this record does not have", name)
			}
			if omitEmpty && v.empty(f) {
				buf = buf[:mark]
				continue
			}
			buf, err = v.appendField(buf, f)
		case name == "spec" && spec != nil:
			if omitEmpty && isEmptyJSON(reflect.ValueOf(spec).Elem()) {
				buf = buf[:mark]
				continue
			}
			valueAt := len(buf)
			if buf, err = appendJSONValue(buf, *spec); err == nil && inline {
				buf, err = inlineObject(buf, mark, valueAt)
			}
		case name == "status" && status != nil:
			if omitEmpty && isEmptyJSON(reflect.ValueOf(status).Elem()) {
				buf = buf[:mark]
				continue
			}
			buf, err = appendJSONValue(buf, *status)
		default:
			own, ok := v.own[name]
			if !ok {
				return nil, fmt.Errorf("domain: layout names %q, which this record does not have", name)
			}
			if omitEmpty && isEmptyJSON(reflect.ValueOf(own)) {
				buf = buf[:mark]
				continue
			}
			buf, err = appendJSONValue(buf, own)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return append(buf, '}'), nil
}

// inlineObject replaces the JSON object written at buf[valueAt:] by its
// members, dropping the comma before it (at mark) when it has none.
func inlineObject(buf []byte, mark, valueAt int) ([]byte, error) {
	obj := bytes.TrimSpace(buf[valueAt:])
	if len(obj) < 2 || obj[0] != '{' {
		return nil, fmt.Errorf("domain: an inline spec must be a JSON object, got %s", obj)
	}
	inner := obj[1 : len(obj)-1]
	if len(inner) == 0 {
		return buf[:mark], nil
	}
	n := copy(buf[valueAt:], inner)
	return buf[:valueAt+n], nil
}

// appendJSONValue writes v as encoding/json would: through its type's
// appender when it has one (fastPaths), else through encoding/json.
func appendJSONValue[T any](b []byte, v T) ([]byte, error) {
	if app := fastPathsOf[T]().appendJSON; app != nil {
		return app(b, v)
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, enc...), nil
}

// appendJSONString writes s as encoding/json does (HTML-escaped): plain
// ASCII as it is, anything else through encoding/json.
func appendJSONString(b []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			enc, _ := json.Marshal(s) // a string always encodes
			return append(b, enc...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// appendJSONStrings writes a list of strings as encoding/json does: null
// for nil.
func appendJSONStrings(b []byte, s []string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendJSONString(b, v)
	}
	return append(b, ']')
}

// appendJSONStringMap writes a map as encoding/json does: its keys
// sorted, null for nil.
func appendJSONStringMap(b []byte, m map[string]string) []byte {
	if m == nil {
		return append(b, "null"...)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(appendJSONString(b, k), ':')
		b = appendJSONString(b, m[k])
	}
	return append(b, '}')
}

// appendJSONOwners writes owner references as encoding/json does with
// OwnerReference's tags: null for nil.
func appendJSONOwners(b []byte, owners []OwnerReference) []byte {
	if owners == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, o := range owners {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"apiVersion":`...)
		b = appendJSONString(b, o.APIVersion)
		b = append(b, `,"kind":`...)
		b = appendJSONString(b, o.Kind)
		b = append(b, `,"name":`...)
		b = appendJSONString(b, o.Name)
		b = append(b, `,"uid":`...)
		b = appendJSONString(b, o.UID)
		if o.Controller {
			b = append(b, `,"controller":true`...)
		}
		if o.BlockOwnerDeletion {
			b = append(b, `,"blockOwnerDeletion":true`...)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendJSONTime writes t as its MarshalJSON does (RFC 3339 with
// nanoseconds, refused out of its range), without a buffer of its own.
func appendJSONTime(b []byte, t time.Time) ([]byte, error) {
	b = append(b, '"')
	b, err := t.AppendText(b)
	if err != nil {
		return nil, err
	}
	return append(b, '"'), nil
}

// appendJSONTimePtr writes *t, or null for nil.
func appendJSONTimePtr(b []byte, t *time.Time) ([]byte, error) {
	if t == nil {
		return append(b, "null"...), nil
	}
	return appendJSONTime(b, *t)
}

// isEmptyJSON is encoding/json's test for ",omitempty".
func isEmptyJSON(v reflect.Value) bool {
	if !v.IsValid() {
		return true
	}
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}
