package domain

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"
)

// What a Lease's renewal would cost on the object model, measured before
// moving Leases onto it (issue 41): a kind shaped as the Lease is, with
// the same row and the same renewal event, decided, folded and encoded
// through the model (decideUpdate's copies and comparisons, its events,
// marshalObject's layout, the row written as the views write it), beside
// the Lease's own path. Leases stay off the model while the model's path
// costs more (BENCHMARKS.md).

// modelLeaseSpec is a LeaseSpec as a kind on the model would have it.
type modelLeaseSpec LeaseSpec

// modelLeaseRenewed is the model lease's renewal: only its renew time
// moved.
type modelLeaseRenewed struct {
	RenewTime time.Time `json:"renewTime"`
	At        time.Time `json:"at"`
}

func (modelLeaseRenewed) EventType() string { return "LeaseRenewed" }

var modelLeaseKind = &ObjectKind[modelLeaseSpec, NoStatus]{
	Kind: "Lease", Resource: "leases.coordination.k8s.io",
	Created: "LeaseCreated", Updated: "LeaseUpdated", MetadataChanged: "LeaseMetadataChanged", Deleted: "LeaseDeleted",
	Layout: ObjectLayout{
		State: []string{"namespace", "name", "uid,omitempty", "labels,omitempty", "annotations,omitempty",
			"owners,omitempty", "spec", "createdAt", "deleted,omitempty", "version", "resourceVersion"},
		Created:         []string{"namespace", "name", "uid,omitempty", "labels,omitempty", "annotations,omitempty", "owners,omitempty", "spec", "at"},
		Updated:         []string{"labels,omitempty", "annotations,omitempty", "owners,omitempty", "spec", "at"},
		MetadataChanged: metadataChangedLayout,
	},
	UpdateSetsOwners: true,
	Strategy: Strategy[modelLeaseSpec, NoStatus]{
		Validate: func(meta ObjectMeta, s modelLeaseSpec) []FieldError {
			return leaseContentProblems(LeaseContent{Labels: meta.Labels, Annotations: meta.Annotations, Spec: LeaseSpec(s)})
		},
		// An update that moves the renew time alone is a renewal.
		RecordUpdate: func(state object, e SpecUpdate[modelLeaseSpec]) (Event, error) {
			old := state.(Object[modelLeaseSpec, NoStatus])
			withOldRenew := LeaseSpec(e.Spec)
			withOldRenew.RenewTime = old.Spec.RenewTime
			if e.Spec.RenewTime != nil && withOldRenew.equal(LeaseSpec(old.Spec)) &&
				semanticEqual(old.Labels, e.Labels) && semanticEqual(old.Annotations, e.Annotations) && semanticEqual(old.Owners, e.Owners) {
				return modelLeaseRenewed{RenewTime: *e.Spec.RenewTime, At: e.At}, nil
			}
			return nil, nil
		},
	},
}

func (modelLeaseSpec) objectKind() *ObjectKind[modelLeaseSpec, NoStatus] { return modelLeaseKind }

// The model lease's own copy, comparison and JSON (fastPaths), as a kind
// on the model may have them: the Lease's own clone and equal, and its
// spec written field by field as its tags say.
func (modelLeaseSpec) modelCopy() func(modelLeaseSpec) modelLeaseSpec {
	return func(s modelLeaseSpec) modelLeaseSpec { return modelLeaseSpec(LeaseSpec(s).clone()) }
}

func (modelLeaseSpec) modelEqual() func(a, b modelLeaseSpec) bool {
	return func(a, b modelLeaseSpec) bool { return LeaseSpec(a).equal(LeaseSpec(b)) }
}

func (modelLeaseSpec) modelAppendJSON() func(b []byte, s modelLeaseSpec) ([]byte, error) {
	return appendModelLeaseSpec
}

func appendModelLeaseSpec(b []byte, s modelLeaseSpec) ([]byte, error) {
	var err error
	b = append(b, '{')
	sep := func() {
		if b[len(b)-1] != '{' {
			b = append(b, ',')
		}
	}
	if s.HolderIdentity != "" {
		sep()
		b = appendJSONString(append(b, `"holderIdentity":`...), s.HolderIdentity)
	}
	if s.LeaseDurationSeconds != nil {
		sep()
		b = strconv.AppendInt(append(b, `"leaseDurationSeconds":`...), int64(*s.LeaseDurationSeconds), 10)
	}
	if s.AcquireTime != nil {
		sep()
		if b, err = appendJSONTime(append(b, `"acquireTime":`...), *s.AcquireTime); err != nil {
			return nil, err
		}
	}
	if s.RenewTime != nil {
		sep()
		if b, err = appendJSONTime(append(b, `"renewTime":`...), *s.RenewTime); err != nil {
			return nil, err
		}
	}
	if s.LeaseTransitions != nil {
		sep()
		b = strconv.AppendInt(append(b, `"leaseTransitions":`...), int64(*s.LeaseTransitions), 10)
	}
	if s.Strategy != "" {
		sep()
		b = appendJSONString(append(b, `"strategy":`...), s.Strategy)
	}
	if s.PreferredHolder != "" {
		sep()
		b = appendJSONString(append(b, `"preferredHolder":`...), s.PreferredHolder)
	}
	return append(b, '}'), nil
}

func evolveModelLease(l Object[modelLeaseSpec, NoStatus], e Event) Object[modelLeaseSpec, NoStatus] {
	if out, ok := evolveObject(l, e); ok {
		return out
	}
	l.Version++
	if r, ok := e.(modelLeaseRenewed); ok {
		// Only the renew time is new; the spec's other pointers stay
		// shared with the earlier state, as the Lease's own evolve has
		// them.
		t := r.RenewTime
		l.Spec.RenewTime = &t
	}
	return l
}

// renewalSpec is a kubelet's node lease renewed at.
func renewalSpec(name string, at time.Time) LeaseSpec {
	d := int32(40)
	return LeaseSpec{HolderIdentity: name, LeaseDurationSeconds: &d, RenewTime: &at}
}

// TestModelLeaseRenewsAsTheLeaseDoes: the model's lease decides a
// renewal as the Lease does, and its row is the Lease's byte for byte,
// so the benchmark below compares the same work.
func TestModelLeaseRenewsAsTheLeaseDoes(t *testing.T) {
	l, m := benchLeases(t0)
	next := t0.Add(10 * time.Second)
	evs, err := DecideLease(l, UpdateLease{Content: LeaseContent{Spec: renewalSpec("n1", next)}}, at(1))
	if err != nil {
		t.Fatal(err)
	}
	mevs, err := DecideObject(m, Update[modelLeaseSpec, NoStatus]{Spec: modelLeaseSpec(renewalSpec("n1", next))}, at(1))
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 1 || len(mevs) != 1 || mustJSON(t, evs[0]) == nil || string(mustJSON(t, evs[0])) != string(mustJSON(t, mevs[0])) {
		t.Fatalf("the Lease records %v, the model's %v", evs, mevs)
	}
	l, m = EvolveLease(l, evs[0]), evolveModelLease(m, mevs[0])
	if a, b := mustJSON(t, l), mustJSON(t, m); string(a) != string(b) {
		t.Errorf("rows differ:\n %s\n %s", a, b)
	}
}

func benchLeases(at time.Time) (Lease, Object[modelLeaseSpec, NoStatus]) {
	spec := renewalSpec("n1", at)
	l := EvolveLease(Lease{}, LeaseCreated{Namespace: NodeLeaseNamespace, Name: "n1", UID: "u1", Spec: spec, At: at})
	m := evolveModelLease(Object[modelLeaseSpec, NoStatus]{}, ObjectCreated[modelLeaseSpec, NoStatus]{
		Namespace: NodeLeaseNamespace, Name: "n1", UID: "u1", Spec: modelLeaseSpec(spec), At: at})
	return l, m
}

// BenchmarkLeaseRenewDomain is a renewal's work in the domain and the
// view's encoding: decide, fold, encode the row; on the Lease's own code
// and on the object model.
func BenchmarkLeaseRenewDomain(b *testing.B) {
	b.Run("Lease", func(b *testing.B) {
		l, _ := benchLeases(t0)
		renew := t0
		for b.Loop() {
			renew = renew.Add(10 * time.Second)
			evs, err := DecideLease(l, UpdateLease{Content: LeaseContent{Spec: renewalSpec("n1", renew)}}, renew)
			if err != nil || len(evs) != 1 {
				b.Fatal(evs, err)
			}
			l = EvolveLease(l, evs[0])
			if _, err := json.Marshal(l); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The row written as the views write it (EncodeJSON: the model's
	// writer straight), and as they did before, through json.Marshal,
	// which checks and compacts again what the model's MarshalJSON wrote,
	// a scan of the whole row that the Lease's own struct, written by
	// encoding/json itself, does not pay.
	b.Run("ObjectModel", func(b *testing.B) { benchModelLeaseRenew(b, EncodeJSON) })
	b.Run("ObjectModelJSONMarshal", func(b *testing.B) { benchModelLeaseRenew(b, json.Marshal) })
}

// benchModelLeaseRenew is the model lease's renewal, its row written by
// marshal.
func benchModelLeaseRenew(b *testing.B, marshal func(any) ([]byte, error)) {
	_, m := benchLeases(t0)
	renew := t0
	for b.Loop() {
		renew = renew.Add(10 * time.Second)
		evs, err := DecideObject(m, Update[modelLeaseSpec, NoStatus]{Spec: modelLeaseSpec(renewalSpec("n1", renew))}, renew)
		if err != nil || len(evs) != 1 {
			b.Fatal(evs, err)
		}
		if _, ok := evs[0].(modelLeaseRenewed); !ok {
			b.Fatalf("%T", evs[0])
		}
		m = evolveModelLease(m, evs[0])
		if _, err := marshal(m); err != nil {
			b.Fatal(err)
		}
	}
}
