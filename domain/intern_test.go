package domain

import (
	"encoding/json"
	"reflect"
	"runtime/debug"
	"testing"
	"unsafe"
)

// TestDecodedEventsShareTheirRepeatedStrings: two nodes' events decoded
// from separate payloads hold one copy of the strings a fleet repeats
// (condition reasons and messages, label keys and values, OS and
// versions, the lease's namespace), and decode to the same values as
// without it.
func TestDecodedEventsShareTheirRepeatedStrings(t *testing.T) {
	// unique keeps a canonical string only while a handle to it lives:
	// with the collector off, the test checks that strings are interned,
	// not when the collector ran (TestNodesFoldedFromRequestsShareTheirRepeatedStrings).
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	decodeTwo := func(typ string, payload string) (Event, Event) {
		t.Helper()
		a, err := UnmarshalEventWith(typ, []byte(payload), json.Unmarshal)
		if err != nil {
			t.Fatal(err)
		}
		b, err := UnmarshalEventWith(typ, []byte(payload), json.Unmarshal)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s decodes to %+v and %+v", typ, a, b)
		}
		return a, b
	}
	shared := func(what, a, b string) {
		t.Helper()
		if a == "" || unsafe.StringData(a) != unsafe.StringData(b) {
			t.Errorf("%s %q is held twice", what, a)
		}
	}

	a, b := decodeTwo("NodeConditionChanged", `{"type":"MemoryPressure","status":"False","reason":"KubeletHasSufficientMemory","message":"kubelet has sufficient memory available","at":"2026-11-27T10:00:00Z"}`)
	ca, cb := a.(NodeConditionChanged), b.(NodeConditionChanged)
	shared("a condition's reason", ca.Reason, cb.Reason)
	shared("a condition's message", ca.Message, cb.Message)
	shared("a condition's type", string(ca.Type), string(cb.Type))

	a, b = decodeTwo("NodeRegistered", `{"name":"n1","kind":"kubelet","labels":{"kubernetes.io/os":"linux"},"capacity":{"cpu":4000},`+
		`"addresses":[{"type":"InternalIP","address":"10.0.0.1"}],"info":{"agentVersion":"v1.37.2","operatingSystem":"linux","architecture":"amd64"},"at":"2026-11-27T10:00:00Z"}`)
	ra, rb := a.(NodeRegistered), b.(NodeRegistered)
	shared("a label's value", ra.Labels["kubernetes.io/os"], rb.Labels["kubernetes.io/os"])
	for k := range ra.Labels {
		for l := range rb.Labels {
			shared("a label's key", k, l)
		}
	}
	shared("the kubelet's version", ra.Info.AgentVersion, rb.Info.AgentVersion)
	shared("an address's type", ra.Addresses[0].Type, rb.Addresses[0].Type)
	if ra.Name != "n1" || ra.Capacity["cpu"] != 4000 || ra.Info.Architecture != "amd64" {
		t.Errorf("registration decoded as %+v", ra.Registration)
	}

	a, b = decodeTwo("LeaseCreated", `{"namespace":"kube-node-lease","name":"n1","owners":[{"apiVersion":"v1","kind":"Node","name":"n1","uid":"u"}],"spec":{},"at":"2026-11-27T10:00:00Z"}`)
	la, lb := a.(LeaseCreated), b.(LeaseCreated)
	shared("a lease's namespace", la.Namespace, lb.Namespace)
	shared("an owner's kind", la.Owners[0].Kind, lb.Owners[0].Kind)
}
