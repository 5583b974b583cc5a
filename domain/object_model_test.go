package domain

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestSemanticEqual: what the object model counts as no change. A nil map
// or slice is an empty one, a time is its instant whatever its location,
// and anything else that differs is a change.
func TestSemanticEqual(t *testing.T) {
	paris := time.FixedZone("CET", 3600)
	tests := []struct {
		name string
		a, b any
		want bool
	}{
		{"nil and empty maps", ConfigMapSpec{}, ConfigMapSpec{Data: map[string]string{}, BinaryData: map[string][]byte{}}, true},
		{"a value differs", ConfigMapSpec{Data: map[string]string{"k": "v"}}, ConfigMapSpec{Data: map[string]string{"k": "w"}}, false},
		{"a key differs", ConfigMapSpec{Data: map[string]string{"k": ""}}, ConfigMapSpec{Data: map[string]string{"j": ""}}, false},
		{"bytes differ", ConfigMapSpec{BinaryData: map[string][]byte{"k": {1}}}, ConfigMapSpec{BinaryData: map[string][]byte{"k": {2}}}, false},
		{"nil and empty bytes", ConfigMapSpec{BinaryData: map[string][]byte{"k": nil}}, ConfigMapSpec{BinaryData: map[string][]byte{"k": {}}}, true},
		{"one instant in two locations", PodDisruptionBudgetStatus{DisruptedPods: map[string]time.Time{"a": t0}},
			PodDisruptionBudgetStatus{DisruptedPods: map[string]time.Time{"a": t0.In(paris)}}, true},
		{"two instants", PodDisruptionBudgetStatus{DisruptedPods: map[string]time.Time{"a": t0}},
			PodDisruptionBudgetStatus{DisruptedPods: map[string]time.Time{"a": t0.Add(time.Second)}}, false},
		{"a nil pointer and a set one", PodDisruptionBudgetSpec{}, PodDisruptionBudgetSpec{MinAvailable: &IntOrPercent{}}, false},
		{"equal pointees", PodDisruptionBudgetSpec{MinAvailable: &IntOrPercent{Value: 2}}, PodDisruptionBudgetSpec{MinAvailable: &IntOrPercent{Value: 2}}, true},
		{"an empty selector is not no selector", PodDisruptionBudgetSpec{Selector: &LabelSelector{}}, PodDisruptionBudgetSpec{}, false},
		{"nil and empty owners", ObjectMeta{Owners: []OwnerReference{}}, ObjectMeta{}, true},
		{"a flag", ConfigMapSpec{Immutable: true}, ConfigMapSpec{}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := semanticEqual(tt.a, tt.b); got != tt.want {
				t.Errorf("semanticEqual = %v, want %v", got, tt.want)
			}
			if got := semanticEqual(tt.b, tt.a); got != tt.want {
				t.Errorf("semanticEqual the other way = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDeepCopySharesNothing: a copy's maps, slices and pointers are its
// own, so that a change to one never shows in the other.
func TestDeepCopySharesNothing(t *testing.T) {
	min := IntOrPercent{Value: 1}
	b := PodDisruptionBudget{
		ObjectMeta: ObjectMeta{Name: "web", Labels: map[string]string{"a": "b"}, Owners: []OwnerReference{{Name: "o"}},
			DeletionRequestedAt: &t0},
		Spec:   PodDisruptionBudgetSpec{MinAvailable: &min, Selector: &LabelSelector{MatchLabels: map[string]string{"app": "web"}}},
		Status: PodDisruptionBudgetStatus{DisruptedPods: map[string]time.Time{"p": t0}, Conditions: []BudgetCondition{{Type: "X"}}},
	}
	c := b.Clone()
	if diff := cmp.Diff(b, c); diff != "" {
		t.Fatalf("the copy differs (-original +copy):\n%s", diff)
	}
	c.Labels["a"] = "changed"
	c.Owners[0].Name = "changed"
	*c.DeletionRequestedAt = t0.Add(time.Hour)
	c.Spec.MinAvailable.Value = 9
	c.Spec.Selector.MatchLabels["app"] = "changed"
	c.Status.DisruptedPods["p"] = t0.Add(time.Hour)
	c.Status.Conditions[0].Type = "changed"
	if b.Labels["a"] != "b" || b.Owners[0].Name != "o" || !b.DeletionRequestedAt.Equal(t0) || min.Value != 1 ||
		b.Spec.Selector.MatchLabels["app"] != "web" || !b.Status.DisruptedPods["p"].Equal(t0) || b.Status.Conditions[0].Type != "X" {
		t.Errorf("a change to the copy shows in the original: %+v", b)
	}
	if empty := (ConfigMapSpec{Data: map[string]string{}}); deepCopy(empty).Data != nil {
		t.Error("an empty map comes back as an empty map, not nil")
	}
}

// TestOneStaleWriteRefusalForEveryKind: an update, a status write and a
// delete based on an older resourceVersion are refused in kube-apiserver's
// words, whichever kind they are for, and record nothing.
func TestOneStaleWriteRefusalForEveryKind(t *testing.T) {
	cm := created() // at resourceVersion 3
	b := EvolvePodDisruptionBudget(PodDisruptionBudget{}, PodDisruptionBudgetCreated{Namespace: "default", Name: "web", At: t0})
	b.ResourceVersion = 3
	for name, decide := range map[string]func() ([]Event, error){
		"configmap update": func() ([]Event, error) {
			return DecideConfigMap(cm, Precondition[ConfigMapCommand]{ResourceVersion: 2, Command: cmContent{Data: map[string]string{"k": "v"}}.update()}, at(1))
		},
		"configmap delete": func() ([]Event, error) {
			return DecideConfigMap(cm, Precondition[ConfigMapCommand]{ResourceVersion: 2, Command: DeleteConfigMap{}}, at(1))
		},
		"budget update": func() ([]Event, error) {
			return DecidePodDisruptionBudget(b, Precondition[PodDisruptionBudgetCommand]{ResourceVersion: 2, Command: UpdatePodDisruptionBudget{Meta: ObjectMeta{Labels: map[string]string{"a": "b"}}}}, at(1))
		},
		"budget status": func() ([]Event, error) {
			return DecidePodDisruptionBudget(b, Precondition[PodDisruptionBudgetCommand]{ResourceVersion: 2, Command: RecordPodDisruptionBudgetStatus{Status: PodDisruptionBudgetStatus{ExpectedPods: 1}}}, at(1))
		},
		"budget delete": func() ([]Event, error) {
			return DecidePodDisruptionBudget(b, Precondition[PodDisruptionBudgetCommand]{ResourceVersion: 2, Command: DeletePodDisruptionBudget{}}, at(1))
		},
	} {
		evs, err := decide()
		if !errors.Is(err, ErrConflict) || evs != nil {
			t.Errorf("%s: %v, %v; want a conflict and no events", name, evs, err)
			continue
		}
		resource, objName := "configmaps", "pico-config"
		if name[0] == 'b' {
			resource, objName = budgetResource, "web"
		}
		if want := StaleObject(resource, objName).Error(); err.Error() != want {
			t.Errorf("%s: %q, want %q", name, err, want)
		}
	}
}

// TestSpecChangeMeansWhatTheStrategySays: a budget's spec change is a new
// generation and its labels alone are not (they are its own event, the
// generation left as it was); a ConfigMap has no generations. Both
// record what a client sent as a whole.
func TestSpecChangeMeansWhatTheStrategySays(t *testing.T) {
	b := EvolvePodDisruptionBudget(PodDisruptionBudget{}, PodDisruptionBudgetCreated{Namespace: "default", Name: "web", At: t0})
	if b.Generation != 1 {
		t.Fatalf("a new budget is generation %d, want 1", b.Generation)
	}
	two := IntOrPercent{Value: 2}
	evs, err := DecidePodDisruptionBudget(b, UpdatePodDisruptionBudget{Meta: ObjectMeta{Labels: map[string]string{"a": "b"}}}, at(1))
	checkDecided(t, evs, err, nil, 1)
	if _, ok := evs[0].(PodDisruptionBudgetMetadataChanged); !ok {
		t.Errorf("a change of labels alone records %T, want a PodDisruptionBudgetMetadataChanged", evs[0])
	}
	if g := EvolvePodDisruptionBudget(b, evs[0]).Generation; g != 1 {
		t.Errorf("a change of labels alone is generation %d, want 1", g)
	}
	evs, err = DecidePodDisruptionBudget(b, UpdatePodDisruptionBudget{Spec: PodDisruptionBudgetSpec{MinAvailable: &two}}, at(1))
	checkDecided(t, evs, err, nil, 1)
	if g := evs[0].(PodDisruptionBudgetChanged).Generation; g != 2 {
		t.Errorf("a change of the spec is generation %d, want 2", g)
	}
	if g := EvolvePodDisruptionBudget(b, evs[0]).Generation; g != 2 {
		t.Errorf("after the change the budget is generation %d, want 2", g)
	}
	evs, err = DecidePodDisruptionBudget(b, UpdatePodDisruptionBudget{Meta: ObjectMeta{Labels: map[string]string{}}}, at(1))
	checkDecided(t, evs, err, nil, 0)

	cm := created()
	evs, err = DecideConfigMap(cm, withData(sampleContent(), "interval", "1").update(), at(1))
	checkDecided(t, evs, err, nil, 1)
	if g := EvolveConfigMap(cm, evs[0]).Generation; g != 0 {
		t.Errorf("a ConfigMap has generation %d, want none", g)
	}
}

// TestMarshalLayoutLeavesOutWhatIsEmpty: ",omitempty" in a layout means
// what it means in a struct tag, and a field without it is always written.
func TestMarshalLayoutLeavesOutWhatIsEmpty(t *testing.T) {
	got, err := marshalLayout([]string{"uid,omitempty", "labels,omitempty", "owners,omitempty", "deleted,omitempty", "changed", "at"}, false,
		&layoutFields{has: fieldUID | fieldLabels | fieldOwners | fieldDeleted | fieldChanged | fieldAt,
			labels: map[string]string{}, at: t0}, (*NoStatus)(nil), (*NoStatus)(nil))
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"changed":null,"at":"` + t0.Format(time.RFC3339Nano) + `"}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if _, err := marshalLayout([]string{"nope"}, false, &layoutFields{}, (*NoStatus)(nil), (*NoStatus)(nil)); err == nil {
		t.Error("a layout naming a field the record lacks is accepted")
	}
	if _, err := marshalLayout([]string{"uid"}, false, &layoutFields{has: fieldAt}, (*NoStatus)(nil), (*NoStatus)(nil)); err == nil {
		t.Error("a layout naming a field of the model this record lacks is accepted")
	}
}

// TestTombstoneOfAKindThatOwnsOthers: the tombstone of a kind whose
// objects own others keeps the uid and whether the dependents were
// orphaned, which the garbage collector reads after the deletion; a
// kind that owns nothing keeps neither, and its deletion's payload stays
// {"at": ...} as it always was.
func TestTombstoneOfAKindThatOwnsOthers(t *testing.T) {
	rs := EvolveReplicaSet(ReplicaSet{}, ReplicaSetCreated{Namespace: "default", Name: "web", UID: "rs-uid", Spec: sampleRSSpec(), At: t0})
	gone := EvolveReplicaSet(rs, ReplicaSetDeleted{Orphan: true, At: t0})
	if !gone.Deleted || gone.Exists() || gone.UID != "rs-uid" || !gone.Orphan || gone.Version != 2 {
		t.Errorf("the ReplicaSet's tombstone: %+v", gone)
	}
	cm := EvolveConfigMap(ConfigMap{}, ConfigMapCreated{Namespace: "default", Name: "cfg", UID: "cm-uid", At: t0})
	del := ConfigMapDeleted{At: t0}
	if gone := EvolveConfigMap(cm, del); !gone.Deleted || gone.UID != "" || gone.Orphan {
		t.Errorf("the ConfigMap's tombstone: %+v", gone)
	}
	if got, want := string(mustJSON(t, del)), `{"at":"`+t0.Format(time.RFC3339Nano)+`"}`; got != want {
		t.Errorf("a ConfigMap's deletion is %s, want %s", got, want)
	}
}

// TestOwnsNamesTheKind: an object owns what names it, by its kind and
// uid, as its controller; an owner reference of another kind with the
// same uid, or one that is not the controller, is not its.
func TestOwnsNamesTheKind(t *testing.T) {
	d := Deployment{ObjectMeta: ObjectMeta{Namespace: "default", Name: "web", UID: "u"}}
	rs := ReplicaSet{ObjectMeta: ObjectMeta{Namespace: "default", Name: "web-1", UID: "u"}}
	if ref := d.OwnerReference(); ref.APIVersion != "apps/v1" || ref.Kind != "Deployment" || !ref.Controller || !ref.BlockOwnerDeletion {
		t.Errorf("the Deployment's owner reference: %+v", ref)
	}
	rs.Owners = []OwnerReference{d.OwnerReference()}
	p := Pod{Owners: []OwnerReference{rs.OwnerReference()}}
	if !d.Owns(rs) || !rs.Owns(p) || d.Owns(p) {
		t.Errorf("owns: Deployment of its ReplicaSet %v, ReplicaSet of its pod %v, Deployment of the pod %v", d.Owns(rs), rs.Owns(p), d.Owns(p))
	}
	rs.Owners[0].Controller = false
	if d.Owns(rs) {
		t.Error("a Deployment owns a ReplicaSet it is not the controller of")
	}
	if got := rs.String(); got != "default/web-1" {
		t.Errorf("String() = %q", got)
	}
}

// TestAnUpdateOfMetadataAloneIsItsOwnEvent: an update that changes a
// Deployment's labels or annotations and not its spec records
// DeploymentMetadataChanged, with only the metadata and what changed,
// and leaves the generation as it was (kube-apiserver bumps it for the
// spec alone); one that changes the spec too records DeploymentChanged,
// a new generation. A ConfigMap, whose update sets its owners, records
// new owners alone as its metadata too.
func TestAnUpdateOfMetadataAloneIsItsOwnEvent(t *testing.T) {
	d := EvolveDeployment(Deployment{}, sampleDeploymentEvents()[0])
	meta := d.ObjectMeta.clone()
	meta.Labels["tier"] = "edge"
	meta.Annotations = map[string]string{ChangeCauseAnnotation: "relabel"}
	evs, err := DecideDeployment(d, UpdateDeployment{Meta: meta, Spec: d.Spec}, at(2))
	checkDecided(t, evs, err, nil, 1)
	want := DeploymentMetadataChanged{Labels: meta.Labels, Annotations: meta.Annotations, Owners: meta.Owners,
		Changed: []string{"metadata.annotations." + ChangeCauseAnnotation, "metadata.labels.tier"}, At: at(2)}
	if diff := cmp.Diff(Event(want), evs[0]); diff != "" {
		t.Fatalf("a change of labels and annotations records (-want +got):\n%s", diff)
	}
	if got := evs[0].EventType(); got != "DeploymentMetadataChanged" {
		t.Errorf("recorded as %q, want DeploymentMetadataChanged", got)
	}
	after := EvolveDeployment(d, evs[0])
	if after.Generation != d.Generation || after.Labels["tier"] != "edge" || after.Annotations[ChangeCauseAnnotation] != "relabel" ||
		!semanticEqual(after.Spec, d.Spec) || after.Version != d.Version+1 {
		t.Errorf("after the change of metadata the Deployment is %+v, want generation %d and the new labels and annotations", after.ObjectMeta, d.Generation)
	}

	spec := deepCopy(d.Spec)
	spec.Replicas++
	evs, err = DecideDeployment(d, UpdateDeployment{Meta: meta, Spec: spec}, at(3))
	checkDecided(t, evs, err, nil, 1)
	if u, ok := evs[0].(DeploymentChanged); !ok || u.Generation != d.Generation+1 || u.Labels["tier"] != "edge" {
		t.Errorf("a change of the spec and labels records %#v, want a DeploymentChanged of generation %d with the labels", evs[0], d.Generation+1)
	}

	cm := created()
	c := sampleContent()
	c.Owners = []OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "pico-01", UID: "n1"}}
	evs, err = DecideConfigMap(cm, c.update(), at(4))
	checkDecided(t, evs, err, nil, 1)
	wantCM := ConfigMapMetadataChanged{Labels: c.Labels, Annotations: c.Annotations, Owners: c.Owners,
		Changed: []string{"metadata.ownerReferences"}, At: at(4)}
	if diff := cmp.Diff(Event(wantCM), evs[0]); diff != "" {
		t.Fatalf("new owners of a ConfigMap record (-want +got):\n%s", diff)
	}
	if got := EvolveConfigMap(cm, evs[0]); !semanticEqual(got.Owners, c.Owners) || !semanticEqual(got.Spec, cm.Spec) {
		t.Errorf("after its new owners the ConfigMap is %+v", got)
	}
}

// TestEveryKindOnTheModelRecordsMetadataApart: every kind on the model
// (every aggregate with the model's created event) registers its
// metadata-changed event too, under a name of its own, and writes it in
// a layout that names its fields; but a kind whose log has always
// recorded a change of metadata alone as its update (a Lease), which
// still does.
func TestEveryKindOnTheModelRecordsMetadataApart(t *testing.T) {
	kinds := 0
	for _, a := range Aggregates() {
		names := map[string]string{}
		for _, s := range a.Events() {
			ev, err := UnmarshalEvent(s.Type, []byte("{}"))
			if err != nil {
				t.Fatalf("%s: %v", s.Type, err)
			}
			names[reflect.TypeOf(ev).Name()] = s.Type
		}
		for name := range names {
			params, ok := strings.CutPrefix(name, "ObjectCreated[")
			if !ok {
				continue
			}
			kinds++
			if upd, err := UnmarshalEvent(names["ObjectUpdated["+params], []byte("{}")); err == nil {
				if m, ok := upd.(interface{ metadataAsUpdate() bool }); ok && m.metadataAsUpdate() {
					// The kind records a change of metadata alone as its
					// update, as its log always has (a Lease):
					// TestALeaseRecordsAChangeOfMetadataAsItsUpdate.
					continue
				}
			}
			typ, ok := names["ObjectMetadataChanged["+params]
			if !ok {
				t.Errorf("aggregate %s is on the object model but has no metadata-changed event", a.Name())
				continue
			}
			if typ == "" || typ == names["ObjectUpdated["+params] {
				t.Errorf("aggregate %s records a change of metadata as %q", a.Name(), typ)
			}
			ev, _ := UnmarshalEvent(typ, []byte(`{"labels":{"a":"b"},"changed":["metadata.labels.a"],"at":"2026-03-01T12:00:00Z"}`))
			if b := mustJSON(t, ev); !bytes.Contains(b, []byte(`"labels":{"a":"b"}`)) || !bytes.Contains(b, []byte(`"changed":["metadata.labels.a"]`)) {
				t.Errorf("%s writes %s: its layout leaves out the labels or what changed", typ, b)
			}
		}
	}
	if kinds < 9 {
		t.Errorf("%d kinds on the model found, want at least 9", kinds)
	}
}

// metadataAsUpdate is true for the update of a kind that records a
// change of its metadata alone as its update (ObjectKind.MetadataAsUpdate).
func (ObjectUpdated[S, St]) metadataAsUpdate() bool { return kindOf[S, St]().MetadataAsUpdate }
