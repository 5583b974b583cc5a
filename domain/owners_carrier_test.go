package domain

import (
	"reflect"
	"testing"
)

// A new event type that records owner references but does not say so
// through OwnersCarrier would leave the reconcilers' owner index blind to
// it: a ReplicaSet would not hear of a pod adopted by that event.
func TestEveryEventWithOwnersCarriesThem(t *testing.T) {
	carriers := 0
	for _, ty := range EventTypes() {
		ev, err := UnmarshalEvent(ty, []byte("{}"))
		if err != nil {
			t.Fatalf("%s: %v", ty, err)
		}
		v := reflect.Indirect(reflect.ValueOf(ev))
		_, hasField := v.Type().FieldByName("Owners")
		_, carries := ev.(OwnersCarrier)
		switch {
		case hasField && !carries:
			t.Errorf("%s (%T) records owner references but is not an OwnersCarrier", ty, ev)
		case carries:
			carriers++
			owners := []OwnerReference{{Kind: "ReplicaSet", Name: "web", UID: "u1", Controller: true}}
			set := reflect.New(v.Type()).Elem()
			set.Set(v)
			set.FieldByName("Owners").Set(reflect.ValueOf(owners))
			if got := set.Interface().(OwnersCarrier).OwnerReferences(); !reflect.DeepEqual(got, owners) {
				t.Errorf("%s: OwnerReferences() = %v, want the event's owners %v", ty, got, owners)
			}
		}
	}
	if carriers == 0 {
		t.Fatal("no event type carries owner references")
	}
}
