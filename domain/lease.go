package domain

import (
	"fmt"
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
// renewed while it lives. The lease view stores it as its row, so it is
// also the aggregate's snapshot.
type Lease struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	UID         string            `json:"uid,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Owners      []OwnerReference  `json:"owners,omitempty"`
	Spec        LeaseSpec         `json:"spec"`
	// CreatedAt is when herd created the lease, by herd's clock.
	CreatedAt time.Time `json:"createdAt"`

	// Deleted marks a lease removed; the row stays as a tombstone.
	Deleted bool `json:"deleted,omitempty"`
	// Version is the number of events in the lease's stream.
	Version int64 `json:"version"`
	// ResourceVersion is the log position of the last event that touched
	// the lease. Set by the projection, not by Evolve.
	ResourceVersion int64 `json:"resourceVersion"`
	// RenewedAt is when herd recorded the last event that set the
	// lease's renew time (its creation or update with one, or a
	// renewal), by herd's clock, not the holder's: for a node's lease it
	// is the node's last heartbeat by the lease. Set by the projection
	// from the event's record, kept in its own column of the view, and
	// not part of the lease's JSON.
	RenewedAt time.Time `json:"-"`
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

// Exists reports whether the lease was created and not deleted.
func (l Lease) Exists() bool { return l.Version > 0 && !l.Deleted }

// Key is the lease's "namespace/name".
func (l Lease) Key() string { return l.Namespace + "/" + l.Name }

// IsNodeLease reports whether the lease is a node's: in kube-node-lease.
func (l Lease) IsNodeLease() bool { return l.Namespace == NodeLeaseNamespace }

// LeaseStream is the name of the log stream of a lease.
func LeaseStream(namespace, name string) string { return LeaseAggregate.Stream(namespace + "/" + name) }

// LeaseCreated records a lease's creation (or creation again after it was
// deleted).
type LeaseCreated struct {
	Namespace   string            `json:"namespace"`
	Name        string            `json:"name"`
	UID         string            `json:"uid,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Owners      []OwnerReference  `json:"owners,omitempty"`
	Spec        LeaseSpec         `json:"spec"`
	At          time.Time         `json:"at"`
}

// LeaseUpdated records a change of a lease beyond its renew time: its
// holder, duration, transitions, labels or owners. The content is the
// complete new content.
type LeaseUpdated struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Owners      []OwnerReference  `json:"owners,omitempty"`
	Spec        LeaseSpec         `json:"spec"`
	At          time.Time         `json:"at"`
}

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

// LeaseDeleted records a lease's removal.
type LeaseDeleted struct {
	At time.Time `json:"at"`
}

// EventType implements Event.
func (LeaseCreated) EventType() string { return "LeaseCreated" }

// EventType implements Event.
func (LeaseUpdated) EventType() string { return "LeaseUpdated" }

// EventType implements Event.
func (LeaseRenewed) EventType() string { return "LeaseRenewed" }

// EventType implements Event.
func (LeaseDeleted) EventType() string { return "LeaseDeleted" }

// LeaseAggregate is the lease in the log: streams "lease/NAMESPACE/NAME".
var LeaseAggregate = defineNamespacedAggregate("lease",
	eventOf[LeaseCreated](1),
	eventOf[LeaseUpdated](1),
	eventOf[LeaseRenewed](1),
	eventOf[LeaseDeleted](1),
)

// LeaseCommand is a command on one lease: CreateLease, UpdateLease or
// DeleteLease.
type LeaseCommand interface {
	decideLease(l Lease, now time.Time) ([]Event, error)
}

// DecideLease returns the events cmd causes on lease l at now, or a typed
// error; l is the zero Lease (with its namespace and name) when herd never
// saw it.
func DecideLease(l Lease, cmd LeaseCommand, now time.Time) ([]Event, error) {
	if cmd == nil {
		return nil, fmt.Errorf("nil lease command: %w", ErrInvalid)
	}
	return cmd.decideLease(l, now.UTC())
}

// EvolveLease folds one event into the lease; it never mutates l. Its
// maps, slices and pointers are never written in place: the result shares
// those it does not change with l, and none with e. The strings a fleet
// repeats (the namespace, the owners' kinds, label keys and values) are
// interned, as a decoded event's are (see intern.go).
func EvolveLease(l Lease, e Event) Lease {
	l.Version++
	switch e := e.(type) {
	case LeaseCreated:
		return Lease{
			Namespace: intern(e.Namespace), Name: e.Name, UID: e.UID,
			Labels: internedStrings(e.Labels), Annotations: internedStrings(e.Annotations), Owners: internedOwners(e.Owners),
			Spec: e.Spec.clone(), CreatedAt: e.At, Version: l.Version, ResourceVersion: l.ResourceVersion,
		}
	case LeaseUpdated:
		l.Labels, l.Annotations, l.Owners = internedStrings(e.Labels), internedStrings(e.Annotations), internedOwners(e.Owners)
		l.Spec = e.Spec.clone()
	case LeaseRenewed:
		// Only the renew time is new: the other times and counts are
		// the earlier version's.
		t := e.RenewTime
		l.Spec.RenewTime = &t
	case LeaseDeleted:
		return Lease{Namespace: l.Namespace, Name: l.Name, Deleted: true, Version: l.Version, ResourceVersion: l.ResourceVersion}
	}
	return l
}

// CreateLease creates a lease, as a kubelet does for its node.
type CreateLease struct {
	Namespace string
	Name      string
	UID       string
	Content   LeaseContent
}

func (c CreateLease) decideLease(l Lease, now time.Time) ([]Event, error) {
	errs := objectNameProblems(c.Namespace, c.Name)
	errs = append(errs, leaseContentProblems(c.Content)...)
	if err := invalid("Lease", c.Name, errs); err != nil {
		return nil, err
	}
	if l.Exists() {
		return nil, fmt.Errorf("leases.coordination.k8s.io %q already exists: %w", c.Name, ErrAlreadyExists)
	}
	return []Event{LeaseCreated{Namespace: c.Namespace, Name: c.Name, UID: c.UID,
		Labels: cloneStrings(c.Content.Labels), Annotations: cloneStrings(c.Content.Annotations),
		Owners: slices.Clone(c.Content.Owners), Spec: c.Content.Spec.clone(), At: now}}, nil
}

// UpdateLease replaces a lease's content, as a PUT or a patch does; in a
// Precondition it applies only to that version (ErrConflict otherwise).
// When only the renew time moves it records LeaseRenewed, the
// cheap and frequent case; any other change records LeaseUpdated; no
// change records nothing.
type UpdateLease struct {
	Content LeaseContent
}

func (c UpdateLease) decideLease(l Lease, now time.Time) ([]Event, error) {
	if !l.Exists() {
		return nil, fmt.Errorf("leases.coordination.k8s.io %q not found: %w", l.Name, ErrNotFound)
	}
	if err := invalid("Lease", l.Name, leaseContentProblems(c.Content)); err != nil {
		return nil, err
	}
	next := c.Content.Spec
	sameOther := maps.Equal(l.Labels, c.Content.Labels) && maps.Equal(l.Annotations, c.Content.Annotations) &&
		slices.Equal(l.Owners, c.Content.Owners)
	withOldRenew := next
	withOldRenew.RenewTime = l.Spec.RenewTime
	switch {
	case sameOther && next.equal(l.Spec):
		return nil, nil
	case sameOther && withOldRenew.equal(l.Spec) && next.RenewTime != nil:
		return []Event{LeaseRenewed{RenewTime: *next.RenewTime, At: now}}, nil
	}
	return []Event{LeaseUpdated{Labels: cloneStrings(c.Content.Labels), Annotations: cloneStrings(c.Content.Annotations),
		Owners: slices.Clone(c.Content.Owners), Spec: next.clone(), At: now}}, nil
}

// DeleteLease removes a lease; in a Precondition, only that version
// (ErrConflict otherwise).
type DeleteLease struct{}

func (DeleteLease) decideLease(l Lease, now time.Time) ([]Event, error) {
	if !l.Exists() {
		return nil, fmt.Errorf("leases.coordination.k8s.io %q not found: %w", l.Name, ErrNotFound)
	}
	return []Event{LeaseDeleted{At: now}}, nil
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

// leaseContentProblems checks a lease's labels, annotations and figures.
func leaseContentProblems(c LeaseContent) []FieldError {
	errs := metadataProblems(c.Labels, c.Annotations)
	if d := c.Spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, FieldError{Field: "spec.leaseDurationSeconds", Value: strconv.Itoa(int(*d)), Reason: "must be greater than 0"})
	}
	if t := c.Spec.LeaseTransitions; t != nil && *t < 0 {
		errs = append(errs, FieldError{Field: "spec.leaseTransitions", Value: strconv.Itoa(int(*t)), Reason: "must be greater than or equal to 0"})
	}
	return errs
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
