package domain

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// ControllerRevision is the ControllerRevision aggregate (apps/v1): a
// snapshot of a controller's state that it can roll back to. The
// statefulset reconciler keeps one per template its StatefulSet has had:
// Data is the template as a strategic merge patch of the StatefulSet,
// as Kubernetes stores it, which kubectl rollout undo sends back; Revision
// orders them. Data never changes once created (Kubernetes'
// ValidateControllerRevisionUpdate); Revision does, when an old template
// comes back. It is a kind on the object model (see Object), without a
// status; it follows its owner through the garbage collector.
type ControllerRevision = Object[ControllerRevisionSpec, NoStatus]

// ControllerRevisionSpec is what a ControllerRevision holds. In the log
// and the view its fields stand beside the metadata, as in Kubernetes'
// ControllerRevision.
type ControllerRevisionSpec struct {
	// Data is the revision's state as JSON (compact), opaque to herd but
	// for the StatefulSets' own.
	Data json.RawMessage `json:"data,omitempty"`
	// Revision is the revision's number: the highest is the newest.
	Revision int64 `json:"revision"`
}

// LabelControllerRevisionHashKey is the label of a ControllerRevision
// that carries the hash of its data, as Kubernetes' history package sets
// it (its ControllerRevisionHashLabel).
const LabelControllerRevisionHashKey = "controller.kubernetes.io/hash"

// The ControllerRevision's events.
type (
	// ControllerRevisionCreated records a revision's creation.
	ControllerRevisionCreated = ObjectCreated[ControllerRevisionSpec, NoStatus]
	// ControllerRevisionUpdated records a new revision number (never new
	// data), with the labels, annotations and owners beside it.
	ControllerRevisionUpdated = ObjectUpdated[ControllerRevisionSpec, NoStatus]
	// ControllerRevisionMetadataChanged records new labels or annotations (or owners) alone:
	// the spec and generation stay as they were.
	ControllerRevisionMetadataChanged = ObjectMetadataChanged[ControllerRevisionSpec, NoStatus]
	// ControllerRevisionOwnersChanged records the revision's new owner
	// references: one taken off when its owner was deleted with its
	// dependents orphaned.
	ControllerRevisionOwnersChanged = ObjectOwnersChanged[ControllerRevisionSpec, NoStatus]
	// ControllerRevisionDeleted records a revision's deletion.
	ControllerRevisionDeleted = ObjectDeleted[ControllerRevisionSpec, NoStatus]
)

// controllerRevisionKind is what is the ControllerRevision's own on the
// object model.
var controllerRevisionKind = &ObjectKind[ControllerRevisionSpec, NoStatus]{
	Kind: "ControllerRevision", Resource: "controllerrevisions.apps", APIVersion: "apps/v1",
	Created: "ControllerRevisionCreated", Updated: "ControllerRevisionUpdated", Deleted: "ControllerRevisionDeleted",
	MetadataChanged: "ControllerRevisionMetadataChanged",
	OwnersChanged:   "ControllerRevisionOwnersChanged",
	Layout: ObjectLayout{
		InlineSpec: true,
		State: []string{"namespace", "name", "uid,omitempty", "labels,omitempty", "annotations,omitempty", "owners,omitempty",
			"spec", "createdAt", "deleted,omitempty", "version", "resourceVersion"},
		Created:         []string{"namespace", "name", "uid", "labels,omitempty", "annotations,omitempty", "owners,omitempty", "spec", "at"},
		Updated:         []string{"labels,omitempty", "annotations,omitempty", "owners,omitempty", "spec", "at"},
		MetadataChanged: metadataChangedLayout,
	},
	UpdateSetsOwners: true,
	Strategy: Strategy[ControllerRevisionSpec, NoStatus]{
		Validate:       func(_ ObjectMeta, s ControllerRevisionSpec) []FieldError { return controllerRevisionProblems(s) },
		ValidateUpdate: controllerRevisionUpdateProblems,
	},
}

func (ControllerRevisionSpec) objectKind() *ObjectKind[ControllerRevisionSpec, NoStatus] {
	return controllerRevisionKind
}

// ControllerRevisionAggregate is the ControllerRevision in the log:
// streams "controllerrevision/NAMESPACE/NAME".
var ControllerRevisionAggregate = defineNamespacedAggregate("controllerrevision",
	eventOf[ControllerRevisionCreated](1),
	eventOf[ControllerRevisionUpdated](1),
	eventOf[ControllerRevisionMetadataChanged](1),
	eventOf[ControllerRevisionOwnersChanged](1),
	eventOf[ControllerRevisionDeleted](1),
)

// ControllerRevisionStream is the name of the log stream of a
// ControllerRevision.
func ControllerRevisionStream(namespace, name string) string {
	return ControllerRevisionAggregate.Stream(namespace + "/" + name)
}

// EvolveControllerRevision folds one event into the revision; it never
// mutates r. Every event of the revision is the object model's.
func EvolveControllerRevision(r ControllerRevision, e Event) ControllerRevision {
	out, ok := evolveObject(r, e)
	if !ok {
		out.Version++
	}
	return out
}

// controllerRevisionProblems is kube-apiserver's ValidateControllerRevision
// (beyond the metadata, which the model checks): data is mandatory, and
// herd keeps it as JSON; the revision is not negative.
func controllerRevisionProblems(s ControllerRevisionSpec) []FieldError {
	var errs []FieldError
	switch {
	case len(s.Data) == 0 || bytes.Equal(bytes.TrimSpace(s.Data), []byte("null")):
		errs = append(errs, FieldError{Field: "data", Reason: "Required value: data is mandatory"})
	case !json.Valid(s.Data):
		errs = append(errs, FieldError{Field: "data", Reason: "Invalid value: must be JSON"})
	}
	if s.Revision < 0 {
		errs = append(errs, FieldError{Field: "revision", Value: strconv.FormatInt(s.Revision, 10), Reason: "must be greater than or equal to 0"})
	}
	return errs
}

// controllerRevisionUpdateProblems is kube-apiserver's
// ValidateControllerRevisionUpdate: the data may not change (the
// revision number may: that is how a controller marks an old template
// come back).
func controllerRevisionUpdateProblems(_ ObjectMeta, old ControllerRevisionSpec, _ ObjectMeta, next ControllerRevisionSpec) []FieldError {
	if sameJSON(old.Data, next.Data) {
		return nil
	}
	return []FieldError{{Field: "data", Reason: "Invalid value: field is immutable"}}
}

// sameJSON reports whether a and b are the same JSON but for spacing.
func sameJSON(a, b []byte) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}

// The ControllerRevision's commands: the object model's, and
// RenumberControllerRevision.
type (
	// ControllerRevisionCommand is a command on one ControllerRevision.
	ControllerRevisionCommand = ObjectCommand[ControllerRevisionSpec, NoStatus]
	// CreateControllerRevision creates a ControllerRevision, as a
	// controller (or kubectl create -f) does.
	CreateControllerRevision = Create[ControllerRevisionSpec, NoStatus]
	// UpdateControllerRevision makes a revision's labels, annotations,
	// owners and spec those given; its data may not change, its revision
	// number may.
	UpdateControllerRevision = Update[ControllerRevisionSpec, NoStatus]
	// DeleteControllerRevision deletes a revision.
	DeleteControllerRevision = Delete[ControllerRevisionSpec, NoStatus]
	// ReleaseControllerRevision takes off the revision's reference to the
	// owner of UID.
	ReleaseControllerRevision = Release[ControllerRevisionSpec, NoStatus]
	// AdoptControllerRevision makes an object the controller of a
	// revision that has none and that its selector matches.
	AdoptControllerRevision = Adopt[ControllerRevisionSpec, NoStatus]
)

// DecideControllerRevision returns the events cmd causes on r at now
// (DecideObject).
var DecideControllerRevision = DecideObject[ControllerRevision]

// RenumberControllerRevision gives a revision the number Revision, as
// Kubernetes' StatefulSet controller does when the template the revision
// holds comes back (a rollback): it becomes the newest. Conditional on a
// resourceVersion in a Precondition.
type RenumberControllerRevision struct {
	Revision int64
}

func (c RenumberControllerRevision) decideObject(s subject[ControllerRevisionCommand], now time.Time) ([]Event, error) {
	r := modelOf(s)
	if err := requireObject(r); err != nil {
		return nil, err
	}
	spec := deepCopy(r.Spec)
	spec.Revision = c.Revision
	return decideUpdate(r, r.ObjectMeta, spec, now)
}
