package domain

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"time"
)

// ObjectLayout is the JSON of a kind's state (its view row) and of its
// created and updated events, which the log and the views already hold:
// each list names the fields in the order herd writes them, with
// ",omitempty" where an empty value is left out, as a struct's tags would.
// The names a layout may use are those of objectWire. The layouts are
// fixed by what is stored: a row must come out byte for byte as before,
// or `herd replay --verify` finds a difference, and a payload's field
// names must stay, or old logs no longer decode.
type ObjectLayout struct {
	// InlineSpec puts the spec's fields beside the metadata, where the
	// token "spec" stands, rather than under "spec" (a ConfigMap's data).
	InlineSpec bool
	// State, Created and Updated are the fields of the view row, of the
	// created event and of the updated event. The deleted event is
	// {"at": ...} for every kind.
	State, Created, Updated []string
	// MetadataChanged are the fields of the metadata-changed event:
	// metadataChangedLayout for every kind so far.
	MetadataChanged []string
}

// objectWire is every field an object's JSON or one of its events' may
// hold, by the name a layout gives it; decoding reads a row or a payload
// into it and takes what the kind's state or event has.
type objectWire struct {
	Namespace                  string            `json:"namespace"`
	Name                       string            `json:"name"`
	UID                        string            `json:"uid"`
	Labels                     map[string]string `json:"labels"`
	Annotations                map[string]string `json:"annotations"`
	Finalizers                 []string          `json:"finalizers"`
	Owners                     []OwnerReference  `json:"owners"`
	Spec                       json.RawMessage   `json:"spec"`
	Status                     json.RawMessage   `json:"status"`
	Generation                 int64             `json:"generation"`
	CreatedAt                  time.Time         `json:"createdAt"`
	DeletionRequestedAt        *time.Time        `json:"deletionRequestedAt"`
	DeletionGracePeriodSeconds *int64            `json:"deletionGracePeriodSeconds"`
	Deleted                    bool              `json:"deleted"`
	Orphan                     bool              `json:"orphan"`
	Version                    int64             `json:"version"`
	ResourceVersion            int64             `json:"resourceVersion"`
	Changed                    []string          `json:"changed"`
	Reason                     string            `json:"reason"`
	At                         time.Time         `json:"at"`
	// TerminatingSince is DeletionRequestedAt as a Namespace's row has
	// always named it: the zero time while none was asked for.
	TerminatingSince time.Time `json:"terminatingSince"`
}

// EncodeJSON writes v as json.Marshal writes it, byte for byte: a view
// row or an event payload of a kind on the model straight from its
// MarshalJSON, which writes through the model's layout (marshalLayout)
// what encoding/json would write, already compact and HTML-escaped
// (TestEncodeJSONWritesWhatJSONMarshalWrites); anything else through
// json.Marshal. json.Marshal would check and compact the model's
// bytes again, a scan of the whole record that was a third of a Lease's
// renewal on the model (BENCHMARKS.md). Views and the log write their
// rows and payloads with it.
func EncodeJSON(v any) ([]byte, error) {
	if m, ok := v.(layoutWritten); ok {
		if rv := reflect.ValueOf(v); rv.Kind() != reflect.Pointer || !rv.IsNil() {
			return m.MarshalJSON()
		}
	}
	return json.Marshal(v)
}

// layoutWritten is a type of the model whose MarshalJSON writes through
// marshalLayout, and so what encoding/json writes of it: Object (and the
// kinds that embed it, whose own MarshalJSON writes through
// marshalObject) and the model's events.
type layoutWritten interface {
	json.Marshaler
	writtenByLayout()
}

func (Object[S, St]) writtenByLayout()                  {}
func (ObjectCreated[S, St]) writtenByLayout()           {}
func (ObjectUpdated[S, St]) writtenByLayout()           {}
func (ObjectMetadataChanged[S, St]) writtenByLayout()   {}
func (ObjectStatusRecorded[S, St]) writtenByLayout()    {}
func (ObjectOwnersChanged[S, St]) writtenByLayout()     {}
func (ObjectDeleted[S, St]) writtenByLayout()           {}
func (ObjectDeletionRequested[S, St]) writtenByLayout() {}

// MarshalJSON writes the object as its kind's view row (ObjectLayout.State).
func (o Object[S, St]) MarshalJSON() ([]byte, error) { return marshalObject(o, nil) }

// marshalObject writes o as its kind's view row, with the fields a kind
// keeps beside the object (a DaemonSet's template generation) in own,
// by the names its layout gives them.
func marshalObject[S Spec[S, St], St any](o Object[S, St], own map[string]any) ([]byte, error) {
	l := kindOf[S, St]().Layout
	f := layoutFields{
		has:       fieldsOfState,
		namespace: o.Namespace, name: o.Name, uid: o.UID,
		labels: o.Labels, annotations: o.Annotations, finalizers: o.Finalizers, owners: o.Owners,
		generation: o.Generation, createdAt: o.CreatedAt,
		deletionRequestedAt: o.DeletionRequestedAt, deletionGracePeriodSeconds: o.DeletionGracePeriodSeconds,
		deleted: o.Deleted, orphan: o.Orphan, version: o.Version, resourceVersion: o.ResourceVersion,
		terminatingSince: timeOrZero(o.DeletionRequestedAt),
		own:              own,
	}
	return marshalLayout(l.State, l.InlineSpec, &f, &o.Spec, &o.Status)
}

// UnmarshalJSON reads a view row MarshalJSON (or an earlier herd) wrote.
func (o *Object[S, St]) UnmarshalJSON(data []byte) error {
	var w objectWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	spec, err := decodeSpec[S](kindOf[S, St]().Layout, data, w.Spec)
	if err != nil {
		return err
	}
	var status St
	if len(w.Status) > 0 && !bytes.Equal(w.Status, []byte("null")) {
		if err := json.Unmarshal(w.Status, &status); err != nil {
			return fmt.Errorf("status: %w", err)
		}
	}
	if w.DeletionRequestedAt == nil && !w.TerminatingSince.IsZero() {
		w.DeletionRequestedAt = &w.TerminatingSince
	}
	*o = Object[S, St]{
		ObjectMeta: ObjectMeta{
			Namespace: w.Namespace, Name: w.Name, UID: w.UID, Labels: w.Labels, Annotations: w.Annotations,
			Finalizers: w.Finalizers, Owners: w.Owners, Generation: w.Generation, CreatedAt: w.CreatedAt,
			DeletionRequestedAt: w.DeletionRequestedAt, DeletionGracePeriodSeconds: w.DeletionGracePeriodSeconds,
		},
		Spec: spec, Status: status,
		Deleted: w.Deleted, Orphan: w.Orphan, Version: w.Version, ResourceVersion: w.ResourceVersion,
	}
	return nil
}

// MarshalJSON writes the event's payload (ObjectLayout.Created).
func (e ObjectCreated[S, St]) MarshalJSON() ([]byte, error) {
	l := kindOf[S, St]().Layout
	f := layoutFields{
		has:       fieldsOfCreated,
		namespace: e.Namespace, name: e.Name, uid: e.UID,
		labels: e.Labels, annotations: e.Annotations, finalizers: e.Finalizers, owners: e.Owners,
		reason: e.Reason, at: e.At,
	}
	return marshalLayout(l.Created, l.InlineSpec, &f, &e.Spec, (*St)(nil))
}

// UnmarshalJSON reads a payload MarshalJSON (or an earlier herd) wrote.
func (e *ObjectCreated[S, St]) UnmarshalJSON(data []byte) error {
	var w objectWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	spec, err := decodeSpec[S](kindOf[S, St]().Layout, data, w.Spec)
	if err != nil {
		return err
	}
	*e = ObjectCreated[S, St]{
		Namespace: w.Namespace, Name: w.Name, UID: w.UID, Labels: w.Labels, Annotations: w.Annotations,
		Finalizers: w.Finalizers, Owners: w.Owners, Spec: spec, Reason: w.Reason, At: w.At,
	}
	return nil
}

// MarshalJSON writes the event's payload (ObjectLayout.Updated).
func (e ObjectUpdated[S, St]) MarshalJSON() ([]byte, error) {
	l := kindOf[S, St]().Layout
	f := layoutFields{
		has:    fieldsOfUpdated,
		labels: e.Labels, annotations: e.Annotations, owners: e.Owners,
		generation: e.Generation, changed: e.Changed, at: e.At,
	}
	return marshalLayout(l.Updated, l.InlineSpec, &f, &e.Spec, (*St)(nil))
}

// UnmarshalJSON reads a payload MarshalJSON (or an earlier herd) wrote.
func (e *ObjectUpdated[S, St]) UnmarshalJSON(data []byte) error {
	var w objectWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	spec, err := decodeSpec[S](kindOf[S, St]().Layout, data, w.Spec)
	if err != nil {
		return err
	}
	*e = ObjectUpdated[S, St]{
		Labels: w.Labels, Annotations: w.Annotations, Owners: w.Owners,
		Spec: spec, Generation: w.Generation, Changed: w.Changed, At: w.At,
	}
	return nil
}

// metadataChangedLayout is the metadata-changed event of every kind on
// the model: the labels, annotations and owners after it, what changed,
// and when.
var metadataChangedLayout = []string{"labels,omitempty", "annotations,omitempty", "owners,omitempty", "changed", "at"}

// MarshalJSON writes the event's payload (ObjectLayout.MetadataChanged).
func (e ObjectMetadataChanged[S, St]) MarshalJSON() ([]byte, error) {
	f := layoutFields{
		has:    fieldsOfMetadataChanged,
		labels: e.Labels, annotations: e.Annotations, owners: e.Owners, changed: e.Changed, at: e.At,
	}
	return marshalLayout(kindOf[S, St]().Layout.MetadataChanged, false, &f, (*S)(nil), (*St)(nil))
}

// UnmarshalJSON reads a payload MarshalJSON wrote.
func (e *ObjectMetadataChanged[S, St]) UnmarshalJSON(data []byte) error {
	var w objectWire
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*e = ObjectMetadataChanged[S, St]{
		Labels: w.Labels, Annotations: w.Annotations, Owners: w.Owners, Changed: w.Changed, At: w.At,
	}
	return nil
}

// MarshalJSON writes {"status": ..., "at": ...}.
func (e ObjectStatusRecorded[S, St]) MarshalJSON() ([]byte, error) {
	return marshalLayout(statusRecordedLayout, false, &layoutFields{has: fieldAt, at: e.At}, (*S)(nil), &e.Status)
}

// UnmarshalJSON reads {"status": ..., "at": ...}.
func (e *ObjectStatusRecorded[S, St]) UnmarshalJSON(data []byte) error {
	var w struct {
		Status St        `json:"status"`
		At     time.Time `json:"at"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*e = ObjectStatusRecorded[S, St]{Status: w.Status, At: w.At}
	return nil
}

// MarshalJSON writes {"owners": ..., "at": ...}, owners left out when
// there are none.
func (e ObjectOwnersChanged[S, St]) MarshalJSON() ([]byte, error) {
	return marshalLayout(ownersChangedLayout, false, &layoutFields{has: fieldOwners | fieldAt, owners: e.Owners, at: e.At}, (*S)(nil), (*St)(nil))
}

// UnmarshalJSON reads {"owners": ..., "at": ...}.
func (e *ObjectOwnersChanged[S, St]) UnmarshalJSON(data []byte) error {
	var w struct {
		Owners []OwnerReference `json:"owners"`
		At     time.Time        `json:"at"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*e = ObjectOwnersChanged[S, St]{Owners: w.Owners, At: w.At}
	return nil
}

// MarshalJSON writes {"at": ...}, as every kind's deletion did, with
// "orphan": true before it for a deletion that orphaned dependents.
func (e ObjectDeleted[S, St]) MarshalJSON() ([]byte, error) {
	return marshalLayout(deletedLayout, false, &layoutFields{has: fieldOrphan | fieldAt, orphan: e.Orphan, at: e.At}, (*S)(nil), (*St)(nil))
}

// UnmarshalJSON reads {"orphan": ..., "at": ...}.
func (e *ObjectDeleted[S, St]) UnmarshalJSON(data []byte) error {
	var w struct {
		Orphan bool      `json:"orphan"`
		At     time.Time `json:"at"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	*e = ObjectDeleted[S, St]{Orphan: w.Orphan, At: w.At}
	return nil
}

// MarshalJSON writes {"at": ...}.
func (e ObjectDeletionRequested[S, St]) MarshalJSON() ([]byte, error) {
	return marshalLayout(atLayout, false, &layoutFields{has: fieldAt, at: e.At}, (*S)(nil), (*St)(nil))
}

// UnmarshalJSON reads {"at": ...}.
func (e *ObjectDeletionRequested[S, St]) UnmarshalJSON(data []byte) error {
	var w struct {
		At time.Time `json:"at"`
	}
	if err := json.Unmarshal(data, &w); err != nil {
		return err
	}
	e.At = w.At
	return nil
}

// decodeSpec reads the spec: from the whole of data for a kind whose
// spec is inline, else from the "spec" field.
func decodeSpec[S any](l ObjectLayout, data, field json.RawMessage) (S, error) {
	var spec S
	src := field
	if l.InlineSpec {
		src = data
	}
	if len(src) == 0 || bytes.Equal(src, []byte("null")) {
		return spec, nil
	}
	if err := json.Unmarshal(src, &spec); err != nil {
		return spec, fmt.Errorf("spec: %w", err)
	}
	return spec, nil
}

// The layouts of the events whose JSON is the same for every kind.
var (
	statusRecordedLayout = []string{"status", "at"}
	ownersChangedLayout  = []string{"owners,omitempty", "at"}
	deletedLayout        = []string{"orphan,omitempty", "at"}
	atLayout             = []string{"at"}
)

// timeOrZero is *t, or the zero time for nil.
func timeOrZero(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}
