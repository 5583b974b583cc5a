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

// OwnerReferences is the object's owners after the update, for a kind
// whose update sets them (ObjectKind.UpdateSetsOwners); the update of any
// other kind leaves them as they were and carries none (CarriesOwners).
func (e ObjectUpdated[S, St]) OwnerReferences() []OwnerReference { return e.Owners }

// carriesOwners is false for the update of a kind whose update leaves the
// owners as they were: its event has no owners to read.
func (ObjectUpdated[S, St]) carriesOwners() bool { return kindOf[S, St]().UpdateSetsOwners }

// CarriesOwners says whether events of ev's type record the object's
// owner references as they stand after it: an OwnersCarrier, but for an
// update of a kind whose update leaves the owners alone (a ReplicaSet's:
// its owners change by an event of their own). Whoever follows ownership
// from the log reads the owners of these types only; reading an empty
// list from another would take the object from its owner.
func CarriesOwners(ev Event) bool {
	if _, ok := ev.(OwnersCarrier); !ok {
		return false
	}
	if c, ok := ev.(interface{ carriesOwners() bool }); ok {
		return c.carriesOwners()
	}
	return true
}

// OwnerReferences is the object's owners after the change of its
// metadata.
func (e ObjectMetadataChanged[S, St]) OwnerReferences() []OwnerReference { return e.Owners }

// OwnerReferences is the object's owners after the change.
func (e ObjectOwnersChanged[S, St]) OwnerReferences() []OwnerReference { return e.Owners }

// OwnerReferences is the new pod's owners.
func (e PodCreated) OwnerReferences() []OwnerReference { return e.Owners }

// OwnerReferences is the owners of the pod a runtime reported.
func (e PodObserved) OwnerReferences() []OwnerReference { return e.Owners }

// OwnerReferences is the pod's owners after the change.
func (e PodOwnersChanged) OwnerReferences() []OwnerReference { return e.Owners }
