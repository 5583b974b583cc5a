package domain

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// tricky strings for the JSON appenders: plain ASCII, what encoding/json
// escapes (quotes, backslashes, control bytes, HTML), and beyond ASCII
// (valid and not, and the line separators JavaScript reads as newlines).
var trickyStrings = []string{"", "web", "app.kubernetes.io/name", `say "hi"`, `a\b`, "tab\there", "nl\n", "\x00\x1f",
	"<script>&</script>", "héllo", "日本", "\u2028\u2029", "bad\xffutf8", "\b\f"}

// TestMarshalLayoutWritesWhatEncodingJSONWrites: the model's own
// appenders write what encoding/json writes of the same values, byte for
// byte, so that rows and payloads stay as the log and the views hold them.
func TestMarshalLayoutWritesWhatEncodingJSONWrites(t *testing.T) {
	same := func(what string, got []byte, v any) {
		t.Helper()
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: got %s, encoding/json writes %s", what, got, want)
		}
	}
	for _, s := range trickyStrings {
		same("string "+s, appendJSONString(nil, s), s)
	}
	same("nil list", appendJSONStrings(nil, nil), []string(nil))
	same("list", appendJSONStrings(nil, trickyStrings), trickyStrings)
	same("nil map", appendJSONStringMap(nil, nil), map[string]string(nil))
	same("empty map", appendJSONStringMap(nil, map[string]string{}), map[string]string{})
	m := map[string]string{}
	for i, s := range trickyStrings {
		m[s] = trickyStrings[len(trickyStrings)-1-i]
	}
	same("map", appendJSONStringMap(nil, m), m)
	same("nil owners", appendJSONOwners(nil, nil), []OwnerReference(nil))
	owners := []OwnerReference{
		{APIVersion: "v1", Kind: "Node", Name: "n1", UID: "u1"},
		{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: "<web>", UID: "u2", Controller: true},
		{Kind: "Job", Name: "j", BlockOwnerDeletion: true},
		{Controller: true, BlockOwnerDeletion: true},
	}
	same("owners", appendJSONOwners(nil, owners), owners)
	for _, tm := range []time.Time{{}, t0, t0.Add(123456789 * time.Nanosecond),
		time.Date(2026, 3, 1, 2, 3, 4, 500, time.FixedZone("x", -(5*3600+30*60)))} {
		got, err := appendJSONTime(nil, tm)
		if err != nil {
			t.Fatal(err)
		}
		same("time "+tm.String(), got, tm)
		got, err = appendJSONTimePtr(nil, &tm)
		if err != nil {
			t.Fatal(err)
		}
		same("time pointer", got, &tm)
	}
	if got, _ := appendJSONTimePtr(nil, nil); string(got) != "null" {
		t.Errorf("nil time: %s", got)
	}
	if _, err := appendJSONTime(nil, time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)); err == nil {
		t.Error("a time encoding/json refuses is written")
	}
	if _, err := json.Marshal(ObjectDeleted[ConfigMapSpec, NoStatus]{At: time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC)}); err == nil {
		t.Error("an event whose time encoding/json refuses is written")
	}
}

// TestFastPathsDoWhatTheGenericPathsDo: every fast path the model takes
// (fastPaths) copies, compares and writes as the reflective walks and
// encoding/json do, on empty, nil and full values.
func TestFastPathsDoWhatTheGenericPathsDo(t *testing.T) {
	one, two := int32(1), int32(2)
	t1, t2 := t0, t0.Add(time.Second)
	checkFastPaths(t, []map[string]string{nil, {}, {"a": "1"}, {"a": "2"}, {"a": "1", "b": ""}})
	checkFastPaths(t, [][]string{nil, {}, {"a"}, {"a", "b"}, {"b", "a"}})
	checkFastPaths(t, [][]OwnerReference{nil, {}, {{Name: "a"}}, {{Name: "a", Controller: true}}})
	checkFastPaths(t, []*time.Time{nil, &t1, &t2, ptrTo(t1.In(time.FixedZone("x", 3600)))})
	checkFastPaths(t, []LeaseSpec{{}, {HolderIdentity: "n1"}, {LeaseDurationSeconds: &one}, {LeaseDurationSeconds: &two},
		{RenewTime: &t1}, {RenewTime: &t2}, {AcquireTime: &t1, LeaseTransitions: &one}, {Strategy: "x", PreferredHolder: "y"},
		{HolderIdentity: "<n&1>", LeaseDurationSeconds: &two, AcquireTime: &t2, RenewTime: &t1, LeaseTransitions: &two, Strategy: "s", PreferredHolder: "p"}})
}

func ptrTo[T any](v T) *T { return &v }

// checkFastPaths checks T's fast paths against the generic paths on each
// pair of values.
func checkFastPaths[T any](t *testing.T, values []T) {
	t.Helper()
	fp := fastPathsOf[T]()
	if fp.copy == nil && fp.equal == nil && fp.appendJSON == nil {
		t.Fatalf("%T has no fast path", values[0])
	}
	for i, a := range values {
		if fp.copy != nil {
			got, want := fp.copy(a), copyValue(reflect.ValueOf(a)).Interface().(T)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%T: copy of %+v is %+v, the generic copy %+v", a, a, got, want)
			}
			checkSharesNothing(t, reflect.ValueOf(a), reflect.ValueOf(got))
		}
		if fp.appendJSON != nil {
			got, err := fp.appendJSON(nil, a)
			want, werr := json.Marshal(a)
			if err != nil || werr != nil || string(got) != string(want) {
				t.Errorf("%T: %+v writes %s (%v), encoding/json %s (%v)", a, a, got, err, want, werr)
			}
		}
		for j, b := range values {
			if fp.equal == nil {
				continue
			}
			if got, want := fp.equal(a, b), equalValues(reflect.ValueOf(a), reflect.ValueOf(b)); got != want {
				t.Errorf("%T: values %d and %d equal %v, generically %v", a, i, j, got, want)
			}
		}
	}
}

// checkSharesNothing fails when a copy shares a map, a slice's array or
// a pointer with its original.
func checkSharesNothing(t *testing.T, a, b reflect.Value) {
	t.Helper()
	switch a.Kind() {
	case reflect.Map, reflect.Pointer:
		if !a.IsNil() && a.UnsafePointer() == b.UnsafePointer() {
			t.Errorf("a copy of %v shares it", a.Type())
		}
	case reflect.Slice:
		if a.Len() > 0 && a.UnsafePointer() == b.UnsafePointer() {
			t.Errorf("a copy of %v shares its array", a.Type())
		}
	case reflect.Struct:
		for i := range a.NumField() {
			if a.Type().Field(i).IsExported() {
				checkSharesNothing(t, a.Field(i), b.Field(i))
			}
		}
	}
}

// TestAnUpdateOnTheModelKeepsNoMapOfTheCommand: an update copies the
// command's spec and metadata only once it knows the event it records,
// and then into it: whatever the command's maps become afterwards, the
// events stay as decided, for the model's own update event (a
// ReplicaSet's) and for a kind's own (a DaemonSet's, RecordUpdate).
func TestAnUpdateOnTheModelKeepsNoMapOfTheCommand(t *testing.T) {
	check := func(kind string, decide func(labels map[string]string, tmplLabels map[string]string) ([]Event, error)) {
		t.Helper()
		labels, tmplLabels := map[string]string{"tier": "front"}, map[string]string{"app": "web", "v": "2"}
		evs, err := decide(labels, tmplLabels)
		if err != nil || len(evs) == 0 {
			t.Fatalf("%s: %v %v", kind, evs, err)
		}
		before := mustJSON(t, evs)
		labels["tier"], tmplLabels["v"] = "changed", "changed"
		if after := mustJSON(t, evs); string(after) != string(before) {
			t.Errorf("%s: the events follow the command's maps:\n %s\nthen\n %s", kind, before, after)
		}
	}
	check("ReplicaSet", func(labels, tmplLabels map[string]string) ([]Event, error) {
		rs := EvolveReplicaSet(ReplicaSet{}, ReplicaSetCreated{Namespace: "default", Name: "web", UID: "u", Spec: sampleRSSpec(), At: t0})
		spec := sampleRSSpec()
		spec.Template.Labels = tmplLabels
		return DecideReplicaSet(rs, UpdateReplicaSet{Meta: ObjectMeta{Labels: labels}, Spec: spec}, at(1))
	})
	check("DaemonSet", func(labels, tmplLabels map[string]string) ([]Event, error) {
		ds := EvolveDaemonSet(DaemonSet{}, DaemonSetCreated{Namespace: "default", Name: "logs", UID: "u", Spec: sampleDSSpec(), At: t0})
		spec := sampleDSSpec()
		tmplLabels["app"] = "logs"
		spec.Template.Labels = tmplLabels
		return DecideDaemonSet(ds, UpdateDaemonSet{Meta: ObjectMeta{Labels: labels}, Spec: spec}, at(1))
	})
}
