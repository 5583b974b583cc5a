package domain

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func sampleControllerRevisionEvents() []Event {
	owner := OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "sts-uid", Controller: true}
	spec := ControllerRevisionSpec{Data: json.RawMessage(`{"spec":{"template":{"$patch":"replace"}}}`), Revision: 1}
	return []Event{
		ControllerRevisionCreated{Namespace: "default", Name: "web-abc", UID: "cr-uid",
			Labels: map[string]string{LabelControllerRevisionHashKey: "abc"}, Owners: []OwnerReference{owner}, Spec: spec, At: at(1)},
		ControllerRevisionUpdated{Labels: map[string]string{LabelControllerRevisionHashKey: "abc"}, Owners: []OwnerReference{owner},
			Spec: ControllerRevisionSpec{Data: spec.Data, Revision: 3}, At: at(2)},
		ControllerRevisionMetadataChanged{Labels: map[string]string{LabelControllerRevisionHashKey: "abc", "team": "a"}, Owners: []OwnerReference{owner},
			Changed: []string{"metadata.labels.team"}, At: at(2)},
		ControllerRevisionOwnersChanged{At: at(3)},
		ControllerRevisionDeleted{At: at(4)},
	}
}

func createdRevision(t *testing.T) ControllerRevision {
	t.Helper()
	s := createdStatefulSet(t, sampleStatefulSetSpec())
	evs, err := DecideControllerRevision(ControllerRevision{}, NewTemplateRevision(s.ObjectMeta, s.OwnerReference(), s.Spec.Template, LabelControllerRevisionHashKey, []byte(`{"spec":{"template":{"$patch":"replace"}}}`), 1, "cr-uid"), at(1))
	if err != nil || len(evs) != 1 {
		t.Fatalf("create: %v %v", evs, err)
	}
	return EvolveControllerRevision(ControllerRevision{}, evs[0])
}

// TestStatefulSetRevisionIsNamedAfterItsTemplate: the revision of a
// StatefulSet's template is named as its pods' controller-revision-hash,
// labelled with the hash, owned by the StatefulSet.
func TestStatefulSetRevisionIsNamedAfterItsTemplate(t *testing.T) {
	s := createdStatefulSet(t, sampleStatefulSetSpec())
	r := createdRevision(t)
	if r.Name != "web-"+PodTemplateHash(s.Spec.Template) || r.Name != "web-"+r.Labels[LabelControllerRevisionHashKey] || r.Labels["app"] != "web" ||
		!s.Owns(r) || r.Spec.Revision != 1 {
		t.Fatalf("revision = %+v", r)
	}
}

// TestControllerRevisionRefusesWhatKubeApiserverRefuses: no data, data
// that is not JSON, a negative revision, and a change of data on update
// are refused naming the field; a new revision number is not.
func TestControllerRevisionRefusesWhatKubeApiserverRefuses(t *testing.T) {
	meta := ObjectMeta{Namespace: "default", Name: "web-1"}
	for _, tc := range []struct {
		field string
		spec  ControllerRevisionSpec
	}{
		{"data: Required value", ControllerRevisionSpec{Revision: 1}},
		{"data: Invalid value", ControllerRevisionSpec{Data: json.RawMessage(`{"x"`), Revision: 1}},
		{"revision", ControllerRevisionSpec{Data: json.RawMessage(`{}`), Revision: -1}},
	} {
		if _, err := DecideControllerRevision(ControllerRevision{}, CreateControllerRevision{Meta: meta, Spec: tc.spec}, at(1)); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("%s: err = %v", tc.field, err)
		}
	}
	r := createdRevision(t)
	changed := deepCopy(r.Spec)
	changed.Data = json.RawMessage(`{"spec":{}}`)
	if evs, err := DecideControllerRevision(r, UpdateControllerRevision{Meta: r.ObjectMeta, Spec: changed}, at(2)); !errors.Is(err, ErrInvalid) ||
		!strings.Contains(err.Error(), "data: Invalid value: field is immutable") || len(evs) != 0 {
		t.Fatalf("data changed: %v %v", evs, err)
	}
	spaced := deepCopy(r.Spec)
	spaced.Data = json.RawMessage(`{"spec": {"template": {"$patch": "replace"}}}`)
	if _, err := DecideControllerRevision(r, UpdateControllerRevision{Meta: r.ObjectMeta, Spec: spaced}, at(2)); err != nil {
		t.Fatalf("the same data spaced otherwise: %v", err)
	}
	evs, err := DecideControllerRevision(r, RenumberControllerRevision{Revision: 4}, at(2))
	if err != nil || len(evs) != 1 {
		t.Fatalf("renumber: %v %v", evs, err)
	}
	if got := EvolveControllerRevision(r, evs[0]); got.Spec.Revision != 4 || string(got.Spec.Data) != string(r.Spec.Data) || len(got.Owners) != 1 {
		t.Fatalf("renumbered = %+v", got)
	}
}

// TestControllerRevisionReplays: its events folded from the log's JSON
// give the revision its row holds, and the row reads back as it was; a
// release takes the owner off, a delete leaves a tombstone.
func TestControllerRevisionReplays(t *testing.T) {
	var r ControllerRevision
	for _, e := range sampleControllerRevisionEvents()[:2] {
		r = EvolveControllerRevision(r, roundTrip(t, e))
	}
	if r.Spec.Revision != 3 || r.Version != 2 || r.UID != "cr-uid" || len(r.Owners) != 1 {
		t.Fatalf("replayed = %+v", r)
	}
	row, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(row), `"data":{"spec":{"template":{"$patch":"replace"}}},"revision":3`) {
		t.Fatalf("row = %s", row)
	}
	var back ControllerRevision
	if err := json.Unmarshal(row, &back); err != nil || !semanticEqual(back, r) {
		t.Fatalf("row reads back as %+v (%v), want %+v", back, err, r)
	}
	evs, err := DecideControllerRevision(r, ReleaseControllerRevision{UID: "sts-uid"}, at(3))
	if err != nil || len(evs) != 1 {
		t.Fatalf("release: %v %v", evs, err)
	}
	r = EvolveControllerRevision(r, evs[0])
	if len(r.Owners) != 0 {
		t.Fatalf("owners after release: %v", r.Owners)
	}
	evs, _ = DecideControllerRevision(r, DeleteControllerRevision{}, at(4))
	if r = EvolveControllerRevision(r, evs[0]); r.Exists() || !r.Deleted {
		t.Fatalf("deleted = %+v", r)
	}
}
