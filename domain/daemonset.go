package domain

import (
	"encoding/json"
	"fmt"
	"time"
)

// DaemonSet is the DaemonSet aggregate (apps/v1): one pod made from
// Template on every node that fits it. The daemonset reconciler acts on
// it; the view stores it as its row, so it is also the aggregate's
// snapshot. It is a kind on the object model (see Object): a change of
// its spec is a new generation, which Status.ObservedGeneration says the
// reconciler acted on; its deletion takes a propagation for its pods.
type DaemonSet struct {
	Object[DaemonSetSpec, DaemonSetStatus]
	// TemplateGeneration counts the changes to Spec.Template alone, as
	// kube-apiserver's deprecated.daemonset.template.generation
	// annotation does; each pod carries the one it was made from as its
	// pod-template-generation label. It is the DaemonSet's own, beside
	// the object.
	TemplateGeneration int64
}

// DaemonSetSpec is what a DaemonSet asks for.
type DaemonSetSpec struct {
	Selector LabelSelector `json:"selector"`
	Template PodTemplate   `json:"template"`
	// UpdateStrategy says how pods made from an older template are
	// replaced.
	UpdateStrategy DaemonSetUpdateStrategy `json:"updateStrategy"`
	// MinReadySeconds is how long a pod must have been ready to count as
	// available.
	MinReadySeconds int32 `json:"minReadySeconds,omitempty"`
	// RevisionHistoryLimit is how many old ControllerRevisions of its
	// templates the DaemonSet keeps beyond those its pods are at.
	RevisionHistoryLimit int32 `json:"revisionHistoryLimit"`
}

// The update strategies of a DaemonSet, as Kubernetes spells them.
const (
	// DaemonSetRollingUpdate replaces the pods of an older template by
	// itself, a few nodes at a time.
	DaemonSetRollingUpdate = "RollingUpdate"
	// DaemonSetOnDelete makes a pod of the new template only once the old
	// one has been deleted by someone else.
	DaemonSetOnDelete = "OnDelete"
)

// DaemonSetUpdateStrategy is a DaemonSet's spec.updateStrategy.
type DaemonSetUpdateStrategy struct {
	// Type is DaemonSetRollingUpdate or DaemonSetOnDelete.
	Type string `json:"type"`
	// RollingUpdate is set for a rolling update, nil otherwise.
	RollingUpdate *RollingUpdateDaemonSet `json:"rollingUpdate,omitempty"`
}

// RollingUpdateDaemonSet bounds a rolling update: at most MaxUnavailable
// of the nodes that should run a pod may be without an available one
// while old pods are deleted first, or, when MaxSurge is set instead, at
// most MaxSurge nodes may run a new pod beside the old one until it is
// available. Exactly one of the two is not zero.
type RollingUpdateDaemonSet struct {
	MaxUnavailable IntOrPercent `json:"maxUnavailable"`
	MaxSurge       IntOrPercent `json:"maxSurge"`
}

// DaemonSetStatus is what the reconciler last saw of the DaemonSet's
// nodes and pods, in Kubernetes' counts.
type DaemonSetStatus struct {
	// CurrentNumberScheduled counts the nodes that should run a pod and
	// run at least one.
	CurrentNumberScheduled int32 `json:"currentNumberScheduled"`
	// NumberMisscheduled counts the nodes that run a pod but should not.
	NumberMisscheduled int32 `json:"numberMisscheduled"`
	// DesiredNumberScheduled counts the nodes that should run a pod.
	DesiredNumberScheduled int32 `json:"desiredNumberScheduled"`
	// NumberReady counts the nodes whose pod is ready.
	NumberReady int32 `json:"numberReady"`
	// ObservedGeneration is the generation the reconciler acted on.
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// UpdatedNumberScheduled counts the nodes whose pod is made from the
	// current template.
	UpdatedNumberScheduled int32 `json:"updatedNumberScheduled,omitempty"`
	// NumberAvailable counts the nodes whose pod has been ready for
	// MinReadySeconds; NumberUnavailable the others that should run one.
	NumberAvailable   int32 `json:"numberAvailable,omitempty"`
	NumberUnavailable int32 `json:"numberUnavailable,omitempty"`
}

// String is "namespace/name", as logs name the DaemonSet.
func (ds DaemonSet) String() string { return fmt.Sprintf("%s/%s", ds.Namespace, ds.Name) }

// KindDaemonSet is the kind an owner reference names a DaemonSet by.
const KindDaemonSet = "DaemonSet"

// DaemonSetStream is the name of the log stream of a DaemonSet.
func DaemonSetStream(namespace, name string) string {
	return DaemonSetAggregate.Stream(namespace + "/" + name)
}

// The DaemonSet's events, under the names they have always had in the
// log.
type (
	// DaemonSetCreated records a DaemonSet's creation.
	DaemonSetCreated = ObjectCreated[DaemonSetSpec, DaemonSetStatus]
	// DaemonSetMetadataChanged records new labels or annotations alone:
	// the spec and generations stay as they were.
	DaemonSetMetadataChanged = ObjectMetadataChanged[DaemonSetSpec, DaemonSetStatus]
	// DaemonSetStatusRecorded records what the reconciler saw of the
	// DaemonSet's nodes and pods.
	DaemonSetStatusRecorded = ObjectStatusRecorded[DaemonSetSpec, DaemonSetStatus]
	// DaemonSetOwnersChanged records the DaemonSet's new owner
	// references.
	DaemonSetOwnersChanged = ObjectOwnersChanged[DaemonSetSpec, DaemonSetStatus]
	// DaemonSetDeletionRequested records a deletion in the foreground:
	// the DaemonSet stays, being deleted, until its pods are gone.
	DaemonSetDeletionRequested = ObjectDeletionRequested[DaemonSetSpec, DaemonSetStatus]
	// DaemonSetDeleted records a DaemonSet's deletion; Orphan says its
	// pods stay, their reference to it taken off.
	DaemonSetDeleted = ObjectDeleted[DaemonSetSpec, DaemonSetStatus]
)

// DaemonSetChanged records a new spec, with the labels and annotations
// beside it; Generation and TemplateGeneration are the DaemonSet's
// afterwards. It is the object model's update with the DaemonSet's
// template generation beside it, which its payload has always carried.
type DaemonSetChanged struct {
	Labels             map[string]string `json:"labels,omitempty"`
	Annotations        map[string]string `json:"annotations,omitempty"`
	Spec               DaemonSetSpec     `json:"spec"`
	Generation         int64             `json:"generation"`
	TemplateGeneration int64             `json:"templateGeneration"`
	At                 time.Time         `json:"at"`
}

// EventType implements Event.
func (DaemonSetChanged) EventType() string { return daemonSetKind.Updated }

// daemonSetKind is what is the DaemonSet's own on the object model.
var daemonSetKind = &ObjectKind[DaemonSetSpec, DaemonSetStatus]{
	Kind: KindDaemonSet, Resource: "daemonsets.apps",
	Created: "DaemonSetCreated", Updated: "DaemonSetChanged", Deleted: "DaemonSetDeleted",
	MetadataChanged: "DaemonSetMetadataChanged",
	StatusRecorded:  "DaemonSetStatusRecorded", OwnersChanged: "DaemonSetOwnersChanged",
	DeletionRequested: "DaemonSetDeletionRequested",
	APIVersion:        "apps/v1", OwnsDependents: true, UpdateReplacesOwners: true,
	Layout: ObjectLayout{
		State: []string{"namespace", "name", "uid,omitempty", "labels,omitempty", "annotations,omitempty", "owners,omitempty",
			"spec", "status", "generation", "templateGeneration", "createdAt", "deletionRequestedAt,omitempty",
			"deleted,omitempty", "orphan,omitempty", "version", "resourceVersion"},
		Created: workloadCreatedLayout, Updated: workloadUpdatedLayout,
		MetadataChanged: metadataChangedLayout,
	},
	Strategy: Strategy[DaemonSetSpec, DaemonSetStatus]{
		Validate: func(_ ObjectMeta, s DaemonSetSpec) []FieldError { return daemonSetSpecProblems(s) },
		ValidateUpdate: func(_ ObjectMeta, old DaemonSetSpec, _ ObjectMeta, s DaemonSetSpec) []FieldError {
			if semanticEqual(old.Selector, s.Selector) {
				return nil
			}
			return []FieldError{{Field: "spec.selector", Reason: "Invalid value: field is immutable"}}
		},
		RecordUpdate:              recordDaemonSetUpdate,
		SpecChangeBumpsGeneration: true,
		ValidateStatus: func(_ DaemonSetSpec, _, s DaemonSetStatus) []FieldError {
			errs := nonNegative(nil, "status.currentNumberScheduled", s.CurrentNumberScheduled)
			errs = nonNegative(errs, "status.numberMisscheduled", s.NumberMisscheduled)
			errs = nonNegative(errs, "status.desiredNumberScheduled", s.DesiredNumberScheduled)
			errs = nonNegative(errs, "status.numberReady", s.NumberReady)
			errs = nonNegative(errs, "status.observedGeneration", s.ObservedGeneration)
			errs = nonNegative(errs, "status.updatedNumberScheduled", s.UpdatedNumberScheduled)
			errs = nonNegative(errs, "status.numberAvailable", s.NumberAvailable)
			return nonNegative(errs, "status.numberUnavailable", s.NumberUnavailable)
		},
	},
}

func (DaemonSetSpec) objectKind() *ObjectKind[DaemonSetSpec, DaemonSetStatus] { return daemonSetKind }

// DaemonSetAggregate is the DaemonSet in the log: streams
// "daemonset/NAMESPACE/NAME".
var DaemonSetAggregate = defineNamespacedAggregate("daemonset",
	eventOf[DaemonSetCreated](1),
	eventOf[DaemonSetChanged](1),
	eventOf[DaemonSetMetadataChanged](1),
	eventOf[DaemonSetStatusRecorded](1),
	eventOf[DaemonSetDeleted](1),
	eventOf[DaemonSetDeletionRequested](1),
	eventOf[DaemonSetOwnersChanged](1),
)

// EvolveDaemonSet folds one event into the DaemonSet; it never mutates
// ds. The object model folds its events; the DaemonSet keeps its
// template generation: 1 when created, as its changes say after.
func EvolveDaemonSet(ds DaemonSet, e Event) DaemonSet {
	if c, ok := e.(DaemonSetChanged); ok {
		ds.Object, _ = evolveObject(ds.Object, ObjectUpdated[DaemonSetSpec, DaemonSetStatus]{
			Labels: c.Labels, Annotations: c.Annotations, Spec: c.Spec, Generation: c.Generation, At: c.At,
		})
		ds.TemplateGeneration = c.TemplateGeneration
		return ds
	}
	out, ok := evolveObject(ds.Object, e)
	if !ok {
		ds.Version++
		return ds
	}
	ds.Object = out
	switch e.(type) {
	case DaemonSetCreated:
		ds.TemplateGeneration = 1
	case DaemonSetDeleted:
		ds.TemplateGeneration = 0
	}
	return ds
}

// MarshalJSON writes the DaemonSet as its view row: the object's, with
// its template generation after its generation.
func (ds DaemonSet) MarshalJSON() ([]byte, error) {
	return marshalObject(ds.Object, map[string]any{"templateGeneration": ds.TemplateGeneration})
}

// UnmarshalJSON reads a view row MarshalJSON (or an earlier herd) wrote.
func (ds *DaemonSet) UnmarshalJSON(data []byte) error {
	var own struct {
		TemplateGeneration int64 `json:"templateGeneration"`
	}
	if err := ds.Object.UnmarshalJSON(data); err != nil {
		return err
	}
	if err := json.Unmarshal(data, &own); err != nil {
		return err
	}
	ds.TemplateGeneration = own.TemplateGeneration
	return nil
}

// Clone returns a deep copy: no map, slice or pointer is shared with ds.
func (ds DaemonSet) Clone() DaemonSet { return deepCopy(ds) }
