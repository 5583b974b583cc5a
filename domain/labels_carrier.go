package domain

// LabelsCarrier is an event that records an object's labels in full, as
// they stand after it: a controller that adopts orphans reads them
// through this method to find whose selector a new or relabelled object
// matches, without reading the object. A pod observed from a kubelet
// (PodObserved) is not one: herd's controllers adopt herd's own pods
// only.
type LabelsCarrier interface {
	Event
	// ObjectLabels is the object's labels after the event.
	ObjectLabels() map[string]string
}

// ObjectLabels is the new pod's labels.
func (e PodCreated) ObjectLabels() map[string]string { return e.Labels }

// ObjectLabels is the pod's labels after the change.
func (e PodMetadataChanged) ObjectLabels() map[string]string { return e.Labels }

// ObjectLabels is the new object's labels.
func (e ObjectCreated[S, St]) ObjectLabels() map[string]string { return e.Labels }

// ObjectLabels is the object's labels after the update.
func (e ObjectUpdated[S, St]) ObjectLabels() map[string]string { return e.Labels }

// ObjectLabels is the object's labels after the change.
func (e ObjectMetadataChanged[S, St]) ObjectLabels() map[string]string { return e.Labels }
