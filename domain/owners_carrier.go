package domain

// OwnersCarrier is an event that records an object's owner references in
// full, as they stand after it: whoever follows ownership from the log
// (the reconcilers' owner index) reads them through this method rather
// than by the payload's shape. Every event type with owner references
// implements it (TestEveryEventWithOwnersCarriesThem).
type OwnersCarrier interface {
	Event
	// OwnerReferences is the object's owners after the event; empty for
	// an object that belongs to none.
	OwnerReferences() []OwnerReference
}

// OwnerReferences is the new object's owners.
func (e ObjectCreated[S, St]) OwnerReferences() []OwnerReference { return e.Owners }

// OwnerReferences is the object's owners after the update.
func (e ObjectUpdated[S, St]) OwnerReferences() []OwnerReference { return e.Owners }

// OwnerReferences is the object's owners after the change of its
// metadata.
func (e ObjectMetadataChanged[S, St]) OwnerReferences() []OwnerReference { return e.Owners }

// OwnerReferences is the object's owners after the change.
func (e ObjectOwnersChanged[S, St]) OwnerReferences() []OwnerReference { return e.Owners }

// OwnerReferences is the new lease's owners (a node's lease belongs to
// its node).
func (e LeaseCreated) OwnerReferences() []OwnerReference { return e.Owners }

// OwnerReferences is the lease's owners after the update.
func (e LeaseUpdated) OwnerReferences() []OwnerReference { return e.Owners }

// OwnerReferences is the new pod's owners.
func (e PodCreated) OwnerReferences() []OwnerReference { return e.Owners }

// OwnerReferences is the owners of the pod a runtime reported.
func (e PodObserved) OwnerReferences() []OwnerReference { return e.Owners }

// OwnerReferences is the pod's owners after the change.
func (e PodOwnersChanged) OwnerReferences() []OwnerReference { return e.Owners }
