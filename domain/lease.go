package domain

import (
	"maps"
	"slices"
	"strconv"
	"time"
)

// NodeLeaseNamespace holds the nodes' leases: a kubelet renews the lease
// named after its node there, and each renewal counts as the node's
// heartbeat, as in Kubernetes.
const NodeLeaseNamespace = "kube-node-lease"

// Lease is the Lease aggregate (coordination.k8s.io/v1): a holder's claim,
// renewed while it lives. It is a kind on the object model (see Object)
// with a spec and no status, keeping beside the object when it was last
// renewed. The lease view stores it as its row (the object's JSON), so it
// is also the aggregate's snapshot.
type Lease struct {
	Object[LeaseSpec, NoStatus]
	// RenewedAt is when herd recorded the last event that set the
	// lease's renew time (its creation or update with one, or a
	// renewal), by herd's clock, not the holder's: for a node's lease it
	// is the node's last heartbeat by the lease. Set by the projection
	// from the event's record, kept in its own column of the view, and
	// not part of the lease's JSON.
	RenewedAt time.Time
}

// LeaseSpec is what a lease's holder writes. Times are the holder's, in
// microseconds, as Kubernetes keeps them (MicroTime).
type LeaseSpec struct {
	HolderIdentity       string     `json:"holderIdentity,omitempty"`
	LeaseDurationSeconds *int32     `json:"leaseDurationSeconds,omitempty"`
	AcquireTime          *time.Time `json:"acquireTime,omitempty"`
	RenewTime            *time.Time `json:"renewTime,omitempty"`
	LeaseTransitions     *int32     `json:"leaseTransitions,omitempty"`
	Strategy             string     `json:"strategy,omitempty"`
	PreferredHolder      string     `json:"preferredHolder,omitempty"`
}

// LeaseContent is everything about a lease that its writers set.
type LeaseContent struct {
	Labels      map[string]string
	Annotations map[string]string
	Owners      []OwnerReference
	Spec        LeaseSpec
}

// NewLease is the lease namespace/name before herd saw it: what a
// command on a lease herd never saw is decided on.
func NewLease(namespace, name string) Lease {
	return Lease{Object: Object[LeaseSpec, NoStatus]{ObjectMeta: ObjectMeta{Namespace: namespace, Name: name}}}
}

// Key is the lease's "namespace/name".
func (l Lease) Key() string { return l.Namespace + "/" + l.Name }

// IsNodeLease reports whether the lease is a node's: in kube-node-lease.
func (l Lease) IsNodeLease() bool { return l.Namespace == NodeLeaseNamespace }

// LeaseStream is the name of the log stream of a lease.
func LeaseStream(namespace, name string) string { return LeaseAggregate.Stream(namespace + "/" + name) }

// The lease's events, under the names they have always had in the log.
type (
	// LeaseCreated records a lease's creation (or creation again after
	// it was deleted).
	LeaseCreated = ObjectCreated[LeaseSpec, NoStatus]
	// LeaseUpdated records a change of a lease beyond its renew time:
	// its holder, duration, transitions, labels, annotations or owners
	// (a change of those alone too, as the Lease has always recorded
	// it: leaseKind's MetadataAsUpdate). The content is the complete new
	// content.
	LeaseUpdated = ObjectUpdated[LeaseSpec, NoStatus]
	// LeaseDeleted records a lease's removal.
	LeaseDeleted = ObjectDeleted[LeaseSpec, NoStatus]
)

// LeaseRenewed records that a lease's holder renewed it: only its renew
// time moved. Like a node's heartbeat it is frequent, and herd's retention
// keeps only the newest of a lease's renewals once they are old. A
// renewal of a node's lease is that node's heartbeat, and the only event
// it records: the node's own stream and row do not move (see
// NodeLeaseHolder).
type LeaseRenewed struct {
	RenewTime time.Time `json:"renewTime"`
	At        time.Time `json:"at"`
}

// EventType implements Event.
func (LeaseRenewed) EventType() string { return "LeaseRenewed" }

// leaseKind is what is the Lease's own on the object model: its names,
// the JSON its rows and events have always had, its spec's checks, and
// its renewal.
var leaseKind = &ObjectKind[LeaseSpec, NoStatus]{
	Kind: "Lease", Resource: "leases.coordination.k8s.io", APIVersion: "coordination.k8s.io/v1",
	Created: "LeaseCreated", Updated: "LeaseUpdated", Deleted: "LeaseDeleted",
	Layout: ObjectLayout{
		State: []string{"namespace", "name", "uid,omitempty", "labels,omitempty", "annotations,omitempty",
			"owners,omitempty", "spec", "createdAt", "deleted,omitempty", "version", "resourceVersion"},
		Created: []string{"namespace", "name", "uid,omitempty", "labels,omitempty", "annotations,omitempty",
			"owners,omitempty", "spec", "at"},
		Updated: []string{"labels,omitempty", "annotations,omitempty", "owners,omitempty", "spec", "at"},
	},
	UpdateSetsOwners: true,
	MetadataAsUpdate: true,
	InternsDecoded:   true,
	Strategy: Strategy[LeaseSpec, NoStatus]{
		Validate:     func(_ ObjectMeta, s LeaseSpec) []FieldError { return leaseSpecProblems(s) },
		RecordUpdate: recordLeaseUpdate,
	},
}

func (LeaseSpec) objectKind() *ObjectKind[LeaseSpec, NoStatus] { return leaseKind }

// The Lease's spec's own copy, comparison and JSON (fastPaths): a renewal
// is the most frequent write herd takes.
func (LeaseSpec) modelCopy() func(LeaseSpec) LeaseSpec                     { return LeaseSpec.clone }
func (LeaseSpec) modelEqual() func(a, b LeaseSpec) bool                    { return LeaseSpec.equal }
func (LeaseSpec) modelAppendJSON() func([]byte, LeaseSpec) ([]byte, error) { return appendLeaseSpec }

// recordLeaseUpdate records an update that moves the renew time alone
// (the spec's other fields, the labels, annotations and owners as they
// were) as a renewal, LeaseRenewed, which keeps only the time: the cheap
// and frequent case. Any other update is the model's LeaseUpdated.
func recordLeaseUpdate(state object, u SpecUpdate[LeaseSpec]) (Event, error) {
	old := state.(objectState[LeaseSpec, NoStatus]).Model()
	withOldRenew := u.Spec
	withOldRenew.RenewTime = old.Spec.RenewTime
	if u.Spec.RenewTime != nil && withOldRenew.equal(old.Spec) && maps.Equal(old.Labels, u.Labels) &&
		maps.Equal(old.Annotations, u.Annotations) && slices.Equal(old.Owners, u.Owners) {
		return LeaseRenewed{RenewTime: *u.Spec.RenewTime, At: u.At}, nil
	}
	return nil, nil
}

// LeaseAggregate is the lease in the log: streams "lease/NAMESPACE/NAME".
var LeaseAggregate = defineNamespacedAggregate("lease",
	eventOf[LeaseCreated](1),
	eventOf[LeaseUpdated](1),
	eventOf[LeaseRenewed](1),
	eventOf[LeaseDeleted](1),
)

// LeaseCommand is a command on one lease: CreateLease, UpdateLease or
// DeleteLease, or one of them in From or Precondition.
type LeaseCommand = ObjectCommand[LeaseSpec, NoStatus]

// DecideLease returns the events cmd causes on lease l at now
// (DecideObject), or a typed error; l is NewLease (or the zero Lease)
// when herd never saw it.
var DecideLease = DecideObject[Lease]

// EvolveLease folds one event into the lease (the model's evolveObject,
// and the renewal); it never mutates l. Its maps, slices and pointers are
// never written in place: the result shares those it does not change
// with l, and none with e. The strings a fleet repeats (the namespace,
// the owners' kinds, label keys and values) are interned, as a decoded
// event's are (see intern.go).
func EvolveLease(l Lease, e Event) Lease {
	switch e := e.(type) {
	case LeaseRenewed:
		// Only the renew time is new: the other times and counts are
		// the earlier version's.
		l.Version++
		t := e.RenewTime
		l.Spec.RenewTime = &t
		return l
	case LeaseCreated:
		l = Lease{Object: mustEvolveObject(l.Object, e)}
		l.Namespace = intern(l.Namespace)
		internObjectMeta(&l.ObjectMeta)
		return l
	case LeaseUpdated:
		l.Object = mustEvolveObject(l.Object, e)
		internObjectMeta(&l.ObjectMeta)
		return l
	case LeaseDeleted:
		return Lease{Object: mustEvolveObject(l.Object, e)}
	}
	l.Version++
	return l
}

// mustEvolveObject is evolveObject of one of the model's own events.
func mustEvolveObject[S Spec[S, St], St any](o Object[S, St], e Event) Object[S, St] {
	out, _ := evolveObject(o, e)
	return out
}

// internObjectMeta interns, in place, the labels, annotations and owners
// evolveObject copied for the object alone.
func internObjectMeta(m *ObjectMeta) {
	m.Labels, m.Annotations = internedStrings(m.Labels), internedStrings(m.Annotations)
	internOwners(m.Owners)
}

// CreateLease creates a lease, as a kubelet does for its node.
type CreateLease struct {
	Namespace string
	Name      string
	UID       string
	Content   LeaseContent
}

func (c CreateLease) decideObject(s subject[LeaseCommand], now time.Time) ([]Event, error) {
	meta := ObjectMeta{Namespace: c.Namespace, Name: c.Name, UID: c.UID,
		Labels: c.Content.Labels, Annotations: c.Content.Annotations, Owners: c.Content.Owners}
	return decideCreate(modelOf(s), meta, c.Content.Spec, now)
}

// UpdateLease replaces a lease's content, as a PUT or a patch does; in a
// Precondition it applies only to that version (ErrConflict otherwise).
// When only the renew time moves it records LeaseRenewed, the
// cheap and frequent case; any other change records LeaseUpdated; no
// change records nothing.
type UpdateLease struct {
	Content LeaseContent
}

func (c UpdateLease) decideObject(s subject[LeaseCommand], now time.Time) ([]Event, error) {
	meta := ObjectMeta{Labels: c.Content.Labels, Annotations: c.Content.Annotations, Owners: c.Content.Owners}
	return decideRecordedUpdate(modelOf(s), meta, c.Content.Spec, now, s.state, leaseKind.Strategy.RecordUpdate)
}

// DeleteLease removes a lease; in a Precondition, only that version
// (ErrConflict otherwise).
type DeleteLease struct{}

func (DeleteLease) decideObject(s subject[LeaseCommand], now time.Time) ([]Event, error) {
	return decideDelete(modelOf(s), now)
}

// NodeLeaseHolder returns the node a lease in kube-node-lease speaks for:
// the one it is named after, as Kubernetes' node lifecycle reads it. Each
// renewal of that lease is the node's heartbeat, recorded once, as
// LeaseRenewed in the lease's stream: the health rules take the later of
// the node's own last report and its lease's RenewedAt as the moment the
// node was last heard from. Nothing else of the node moves, as in
// Kubernetes, where Leases exist so that heartbeats stop rewriting the
// Node object.
func NodeLeaseHolder(namespace, name string) (node string, ok bool) {
	if namespace != NodeLeaseNamespace || name == "" {
		return "", false
	}
	return name, true
}

// SetsRenewTime reports whether lease event e sets its lease's renew
// time: a renewal, or a creation or update that carries one.
func SetsRenewTime(e Event) bool {
	switch e := e.(type) {
	case LeaseRenewed:
		return true
	case LeaseCreated:
		return e.Spec.RenewTime != nil
	case LeaseUpdated:
		return e.Spec.RenewTime != nil
	}
	return false
}

// LastHeard is when herd last heard from node n: its own last report, or
// the renewal of its lease renewedAt (zero when it has none), whichever is
// later.
func LastHeard(n Node, renewedAt time.Time) time.Time {
	if renewedAt.After(n.LastHeartbeat) {
		return renewedAt
	}
	return n.LastHeartbeat
}

// leaseSpecProblems checks a lease's figures (the model checks its names,
// labels and annotations).
func leaseSpecProblems(s LeaseSpec) []FieldError {
	var errs []FieldError
	if d := s.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, FieldError{Field: "spec.leaseDurationSeconds", Value: strconv.Itoa(int(*d)), Reason: "must be greater than 0"})
	}
	if t := s.LeaseTransitions; t != nil && *t < 0 {
		errs = append(errs, FieldError{Field: "spec.leaseTransitions", Value: strconv.Itoa(int(*t)), Reason: "must be greater than or equal to 0"})
	}
	return errs
}

// appendLeaseSpec writes s as encoding/json does with LeaseSpec's tags.
func appendLeaseSpec(b []byte, s LeaseSpec) ([]byte, error) {
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

func (s LeaseSpec) clone() LeaseSpec {
	s.LeaseDurationSeconds = clonePtr(s.LeaseDurationSeconds)
	s.AcquireTime = clonePtr(s.AcquireTime)
	s.RenewTime = clonePtr(s.RenewTime)
	s.LeaseTransitions = clonePtr(s.LeaseTransitions)
	return s
}

func (s LeaseSpec) equal(o LeaseSpec) bool {
	return s.HolderIdentity == o.HolderIdentity && s.Strategy == o.Strategy && s.PreferredHolder == o.PreferredHolder &&
		equalPtr(s.LeaseDurationSeconds, o.LeaseDurationSeconds) && equalPtr(s.LeaseTransitions, o.LeaseTransitions) &&
		equalTime(s.AcquireTime, o.AcquireTime) && equalTime(s.RenewTime, o.RenewTime)
}

func equalPtr[T comparable](a, b *T) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

func equalTime(a, b *time.Time) bool {
	return a == nil && b == nil || a != nil && b != nil && a.Equal(*b)
}
