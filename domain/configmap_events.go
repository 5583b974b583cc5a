package domain

import "time"

// ConfigMapCreated records that a ConfigMap was created (or created again after it was
// deleted).
type ConfigMapCreated struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	UID       string `json:"uid,omitempty"`
	ConfigMapContent
	At time.Time `json:"at"`
}

// ConfigMapUpdated records that a ConfigMap's content was replaced, by an update or a
// patch. The content is the complete new content; Changed names what
// differs from before, for people reading the audit log.
type ConfigMapUpdated struct {
	ConfigMapContent
	// Changed lists the paths that changed, sorted: data.KEY,
	// binaryData.KEY, metadata.labels.KEY, metadata.annotations.KEY,
	// immutable and metadata.ownerReferences.
	Changed []string  `json:"changed"`
	At      time.Time `json:"at"`
}

// ConfigMapDeleted records that a ConfigMap was removed.
type ConfigMapDeleted struct {
	At time.Time `json:"at"`
}

// EventType implements Event.
func (ConfigMapCreated) EventType() string { return "ConfigMapCreated" }

// EventType implements Event.
func (ConfigMapUpdated) EventType() string { return "ConfigMapUpdated" }

// EventType implements Event.
func (ConfigMapDeleted) EventType() string { return "ConfigMapDeleted" }

// ConfigMapAggregate is the ConfigMap in the log: streams
// "configmap/NAMESPACE/NAME" and the events they hold.
var ConfigMapAggregate = defineNamespacedAggregate("configmap",
	eventOf[ConfigMapCreated](1),
	eventOf[ConfigMapUpdated](1),
	eventOf[ConfigMapDeleted](1),
)
