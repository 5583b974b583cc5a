package domain

import (
	"bytes"
	"maps"
	"slices"
)

// ConfigMap is the ConfigMap aggregate: configuration an operator keeps in
// herd for nodes and their software to read, as in Kubernetes. It is a
// kind on the object model (see Object): its metadata is ObjectMeta, its
// spec ConfigMapSpec, and it has no status.
type ConfigMap = Object[ConfigMapSpec, NoStatus]

// ConfigMapSpec is a ConfigMap's data. In the log and the view its fields
// stand beside the metadata, as in Kubernetes' ConfigMap.
type ConfigMapSpec struct {
	// Data holds UTF-8 values by key.
	Data map[string]string `json:"data,omitempty"`
	// BinaryData holds arbitrary bytes by key; a key is in Data or in
	// BinaryData, never both.
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
	// Immutable, once set, freezes Data and BinaryData for good, as in
	// Kubernetes: only deleting the ConfigMap can change them.
	Immutable bool `json:"immutable,omitempty"`
}

// The ConfigMap's events, under the names they have always had in the log.
type (
	// ConfigMapCreated records that a ConfigMap was created (or created
	// again after it was deleted).
	ConfigMapCreated = ObjectCreated[ConfigMapSpec, NoStatus]
	// ConfigMapUpdated records that a ConfigMap's data was replaced, by
	// an update or a patch: the complete new labels, annotations, owners
	// and data. Changed lists the paths that changed, sorted:
	// data.KEY, binaryData.KEY, metadata.labels.KEY,
	// metadata.annotations.KEY, immutable and metadata.ownerReferences.
	ConfigMapUpdated = ObjectUpdated[ConfigMapSpec, NoStatus]
	// ConfigMapMetadataChanged records new labels, annotations or owners
	// alone, the data as it was; Changed as ConfigMapUpdated's.
	ConfigMapMetadataChanged = ObjectMetadataChanged[ConfigMapSpec, NoStatus]
	// ConfigMapDeleted records that a ConfigMap was removed.
	ConfigMapDeleted = ObjectDeleted[ConfigMapSpec, NoStatus]
)

// configMapKind is what is the ConfigMap's own on the object model.
var configMapKind = &ObjectKind[ConfigMapSpec, NoStatus]{
	Kind: "ConfigMap", Resource: "configmaps",
	Created: "ConfigMapCreated", Updated: "ConfigMapUpdated", Deleted: "ConfigMapDeleted",
	MetadataChanged: "ConfigMapMetadataChanged",
	Layout: ObjectLayout{
		InlineSpec: true,
		State: []string{"namespace", "name", "uid,omitempty", "labels,omitempty", "annotations,omitempty", "spec",
			"owners,omitempty", "createdAt", "deleted,omitempty", "version", "resourceVersion"},
		Created: []string{"namespace", "name", "uid,omitempty", "labels,omitempty", "annotations,omitempty", "spec",
			"owners,omitempty", "at"},
		Updated:         []string{"labels,omitempty", "annotations,omitempty", "spec", "owners,omitempty", "changed", "at"},
		MetadataChanged: metadataChangedLayout,
	},
	UpdateSetsOwners: true,
	Strategy: Strategy[ConfigMapSpec, NoStatus]{
		Validate: func(_ ObjectMeta, s ConfigMapSpec) []FieldError { return configMapSpecProblems(s) },
		ValidateUpdate: func(_ ObjectMeta, old ConfigMapSpec, _ ObjectMeta, s ConfigMapSpec) []FieldError {
			return immutabilityProblems(old, s)
		},
		Changes: configMapChanges,
	},
}

func (ConfigMapSpec) objectKind() *ObjectKind[ConfigMapSpec, NoStatus] { return configMapKind }

// ConfigMapAggregate is the ConfigMap in the log: streams
// "configmap/NAMESPACE/NAME" and the events they hold.
var ConfigMapAggregate = defineNamespacedAggregate("configmap",
	eventOf[ConfigMapCreated](1),
	eventOf[ConfigMapUpdated](1),
	eventOf[ConfigMapMetadataChanged](1),
	eventOf[ConfigMapDeleted](1),
)

// ConfigMapStream is the name of the log stream that holds a ConfigMap's
// events.
func ConfigMapStream(namespace, name string) string {
	return ConfigMapAggregate.Stream(namespace + "/" + name)
}

// The ConfigMap's commands are the object model's: a ConfigMap has no
// command of its own. What differs from other kinds is said in
// configMapKind: its Strategy (data and binaryData checked, immutability
// kept, the paths an update changed recorded) and UpdateSetsOwners (a
// ConfigMap's owners are what its update says).
type (
	// ConfigMapCommand is a command on one ConfigMap.
	ConfigMapCommand = ObjectCommand[ConfigMapSpec, NoStatus]
	// CreateConfigMap creates a ConfigMap, as `kubectl create configmap`
	// does: its metadata (namespace, name, uid, labels, annotations,
	// owners) and its data. It records ConfigMapCreated, or fails with
	// ErrAlreadyExists when the name is taken in the namespace. A deleted
	// ConfigMap's name is free again: the new one continues the old
	// stream and starts from nothing.
	CreateConfigMap = Create[ConfigMapSpec, NoStatus]
	// UpdateConfigMap replaces a ConfigMap's labels, annotations, owners
	// and data, as a Kubernetes PUT (`kubectl replace`) does; based on a
	// resourceVersion it is in a Precondition, which refuses it with
	// ErrConflict when someone else wrote the ConfigMap in between. It
	// records ConfigMapUpdated with the complete new content,
	// ConfigMapMetadataChanged when only its labels, annotations or owners
	// change, or nothing when the content is what the ConfigMap already
	// holds. An immutable
	// ConfigMap keeps its data and its immutability; its labels and
	// annotations may still change.
	UpdateConfigMap = Update[ConfigMapSpec, NoStatus]
	// DeleteConfigMap removes a ConfigMap, as `kubectl delete configmap`
	// does; in a Precondition it deletes only that version. The view
	// keeps a tombstone so that a later ConfigMap of the same name
	// continues the stream.
	DeleteConfigMap = Delete[ConfigMapSpec, NoStatus]
)

// DecideConfigMap returns the events that cmd causes on ConfigMap c at
// time now (DecideObject). c is the ConfigMap as the view holds it: the
// zero ConfigMap (or one with only its namespace and name set) when herd
// never saw it.
var DecideConfigMap = DecideObject[ConfigMap]

// EvolveConfigMap folds one event into the ConfigMap and returns the
// result; the live view and `herd replay` both call it. It never mutates c
// and copies every map it takes from e. It increments Version for every
// event and never touches ResourceVersion, which belongs to the projection.
func EvolveConfigMap(c ConfigMap, e Event) ConfigMap {
	if out, ok := evolveObject(c, e); ok {
		return out
	}
	c.Version++
	return c
}

// immutabilityProblems enforces Kubernetes' rules for immutable
// ConfigMaps: the flag cannot be cleared and the data cannot change.
func immutabilityProblems(old, next ConfigMapSpec) []FieldError {
	if !old.Immutable {
		return nil
	}
	var errs []FieldError
	if !next.Immutable {
		errs = append(errs, FieldError{Field: "immutable", Reason: "field is immutable when `immutable` is set"})
	}
	if !maps.Equal(old.Data, next.Data) {
		errs = append(errs, FieldError{Field: "data", Reason: "field is immutable when `immutable` is set"})
	}
	if !maps.EqualFunc(old.BinaryData, next.BinaryData, bytes.Equal) {
		errs = append(errs, FieldError{Field: "binaryData", Reason: "field is immutable when `immutable` is set"})
	}
	return errs
}

// configMapChanges lists the paths whose values differ between the
// ConfigMap and its update, sorted, for the audit log: its metadata's
// (metadataChanges) and its data's.
func configMapChanges(old ObjectMeta, oldSpec ConfigMapSpec, meta ObjectMeta, next ConfigMapSpec) []string {
	out := metadataChanges(old, meta)
	out = append(out, changedKeys("data.", oldSpec.Data, next.Data)...)
	for k := range keysOfBoth(oldSpec.BinaryData, next.BinaryData) {
		va, ina := oldSpec.BinaryData[k]
		vb, inb := next.BinaryData[k]
		if ina != inb || !bytes.Equal(va, vb) {
			out = append(out, "binaryData."+k)
		}
	}
	if oldSpec.Immutable != next.Immutable {
		out = append(out, "immutable")
	}
	slices.Sort(out)
	return out
}
