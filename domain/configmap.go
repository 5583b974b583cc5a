package domain

import (
	"bytes"
	"slices"
	"time"
)

// ConfigMap is the ConfigMap aggregate: configuration an operator keeps in
// herd for nodes and their software to read, as in Kubernetes. The
// configmap view stores it as its row, so it is also the aggregate's
// snapshot.
type ConfigMap struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	UID       string `json:"uid,omitempty"`
	ConfigMapContent
	// CreatedAt is when herd created the ConfigMap, by herd's clock.
	CreatedAt time.Time `json:"createdAt"`

	// Deleted marks a ConfigMap removed. The view keeps the row as a
	// tombstone so that the stream version survives a later creation
	// under the same name; gets and lists never show it.
	Deleted bool `json:"deleted,omitempty"`
	// Version is the number of events in the ConfigMap's stream: the
	// expected version of the next append. 0 means herd never saw it.
	Version int64 `json:"version"`
	// ResourceVersion is the global log position of the last event that
	// touched the ConfigMap. Set by the projection, not by Evolve.
	ResourceVersion int64 `json:"resourceVersion"`
}

// ConfigMapContent is everything about a ConfigMap that its writers set:
// what a create starts with and what an update replaces.
type ConfigMapContent struct {
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	// Data holds UTF-8 values by key.
	Data map[string]string `json:"data,omitempty"`
	// BinaryData holds arbitrary bytes by key; a key is in Data or in
	// BinaryData, never both.
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
	// Immutable, once set, freezes Data and BinaryData for good, as in
	// Kubernetes: only deleting the ConfigMap can change them.
	Immutable bool `json:"immutable,omitempty"`
	// Owners are the objects the ConfigMap belongs to: the garbage
	// collector deletes it once they are all gone.
	Owners []OwnerReference `json:"owners,omitempty"`
}

// Exists reports whether the ConfigMap was created and not deleted.
func (c ConfigMap) Exists() bool { return c.Version > 0 && !c.Deleted }

// ConfigMapStream is the name of the log stream that holds a ConfigMap's
// events.
func ConfigMapStream(namespace, name string) string {
	return ConfigMapAggregate.Stream(namespace + "/" + name)
}

// Clone returns a deep copy: no map is shared with c. Empty maps come back
// as nil (see Node.Clone).
func (c ConfigMap) Clone() ConfigMap {
	c.ConfigMapContent = c.ConfigMapContent.clone()
	return c
}

func (c ConfigMapContent) clone() ConfigMapContent {
	out := ConfigMapContent{
		Labels:      cloneStrings(c.Labels),
		Annotations: cloneStrings(c.Annotations),
		Data:        cloneStrings(c.Data),
		Immutable:   c.Immutable,
		Owners:      slices.Clone(c.Owners),
	}
	if len(c.BinaryData) > 0 {
		out.BinaryData = make(map[string][]byte, len(c.BinaryData))
		for k, v := range c.BinaryData {
			out.BinaryData[k] = bytes.Clone(v)
		}
	}
	return out
}
