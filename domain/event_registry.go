package domain

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
)

// ErrUnknownEventType is returned by UnmarshalEvent for a type name the
// domain does not know, such as one written by a newer herd. Replay can
// branch on it to stop with a clear message rather than skip history.
var ErrUnknownEventType = errors.New("unknown event type")

// eventDecoders holds, by stored type name, how to turn a payload back into
// its event. Adding an event type means adding a line here; the round-trip
// test fails for any node event left out.
var eventDecoders = map[string]func([]byte) (Event, error){
	NodeRegistered{}.EventType():         decode[NodeRegistered],
	NodeRestarted{}.EventType():          decode[NodeRestarted],
	HeartbeatRecorded{}.EventType():      decode[HeartbeatRecorded],
	NodeConditionChanged{}.EventType():   decode[NodeConditionChanged],
	NodeBecameReady{}.EventType():        decode[NodeBecameReady],
	NodeDeregistered{}.EventType():       decode[NodeDeregistered],
	NodeLabelsChanged{}.EventType():      decode[NodeLabelsChanged],
	NodeDeleted{}.EventType():            decode[NodeDeleted],
	FleetDisruptionEnded{}.EventType():   decode[FleetDisruptionEnded],
	FleetDisruptionStarted{}.EventType(): decode[FleetDisruptionStarted],
	NodeUntainted{}.EventType():          decode[NodeUntainted],
	NodeTainted{}.EventType():            decode[NodeTainted],
	NodeBecameNotReady{}.EventType():     decode[NodeBecameNotReady],
	HeartbeatMissed{}.EventType():        decode[HeartbeatMissed],
	NodeCordoned{}.EventType():           decode[NodeCordoned],
	NodeUncordoned{}.EventType():         decode[NodeUncordoned],
	NodeDrainStarted{}.EventType():       decode[NodeDrainStarted],
	NodeDrained{}.EventType():            decode[NodeDrained],
	NodeUndrained{}.EventType():          decode[NodeUndrained],
	PodCreated{}.EventType():             decode[PodCreated],
	PodScheduled{}.EventType():           decode[PodScheduled],
	PodUnschedulable{}.EventType():       decode[PodUnschedulable],
	PodStatusUpdated{}.EventType():       decode[PodStatusUpdated],
	PodMetadataChanged{}.EventType():     decode[PodMetadataChanged],
	PodDisruptionTargeted{}.EventType():  decode[PodDisruptionTargeted],
	PodDeletionRequested{}.EventType():   decode[PodDeletionRequested],
	PodShutdownRequested{}.EventType():   decode[PodShutdownRequested],
	PodHalted{}.EventType():              decode[PodHalted],
	PodStopped{}.EventType():             decode[PodStopped],
	PodDeprovisioned{}.EventType():       decode[PodDeprovisioned],
	PodFinalized{}.EventType():           decode[PodFinalized],
	PodObserved{}.EventType():            decode[PodObserved],
	ConfigMapCreated{}.EventType():       decode[ConfigMapCreated],
	ConfigMapUpdated{}.EventType():       decode[ConfigMapUpdated],
	ConfigMapDeleted{}.EventType():       decode[ConfigMapDeleted],
	DeviceBound{}.EventType():            decode[DeviceBound],
	DeviceReleased{}.EventType():         decode[DeviceReleased],
	PodIPAssigned{}.EventType():          decode[PodIPAssigned],
	PodIPUnavailable{}.EventType():       decode[PodIPUnavailable],
	IPAllocated{}.EventType():            decode[IPAllocated],
	IPReleased{}.EventType():             decode[IPReleased],
	NodeScrapeFailed{}.EventType():       decode[NodeScrapeFailed],
	NodeScrapeRecovered{}.EventType():    decode[NodeScrapeRecovered],
	KubeletTargetSet{}.EventType():       decode[KubeletTargetSet],
	KubeletTargetRemoved{}.EventType():   decode[KubeletTargetRemoved],
}

// schemaVersions holds each event type's current payload schema version.
// Bump one when its JSON changes shape, and teach its decoder the old one.
var schemaVersions = map[string]int{
	NodeRegistered{}.EventType():         1,
	NodeRestarted{}.EventType():          1,
	HeartbeatRecorded{}.EventType():      1,
	NodeConditionChanged{}.EventType():   1,
	NodeBecameReady{}.EventType():        1,
	NodeDeregistered{}.EventType():       1,
	NodeLabelsChanged{}.EventType():      1,
	NodeDeleted{}.EventType():            1,
	FleetDisruptionEnded{}.EventType():   1,
	FleetDisruptionStarted{}.EventType(): 1,
	NodeUntainted{}.EventType():          1,
	NodeTainted{}.EventType():            1,
	NodeBecameNotReady{}.EventType():     1,
	HeartbeatMissed{}.EventType():        1,
	NodeCordoned{}.EventType():           1,
	NodeUncordoned{}.EventType():         1,
	NodeDrainStarted{}.EventType():       1,
	NodeDrained{}.EventType():            1,
	NodeUndrained{}.EventType():          1,
	PodCreated{}.EventType():             1,
	PodScheduled{}.EventType():           1,
	PodUnschedulable{}.EventType():       1,
	PodStatusUpdated{}.EventType():       1,
	PodMetadataChanged{}.EventType():     1,
	PodDisruptionTargeted{}.EventType():  1,
	PodDeletionRequested{}.EventType():   1,
	PodShutdownRequested{}.EventType():   1,
	PodHalted{}.EventType():              1,
	PodStopped{}.EventType():             1,
	PodDeprovisioned{}.EventType():       1,
	PodFinalized{}.EventType():           1,
	PodObserved{}.EventType():            1,
	ConfigMapCreated{}.EventType():       1,
	ConfigMapUpdated{}.EventType():       1,
	ConfigMapDeleted{}.EventType():       1,
	DeviceBound{}.EventType():            1,
	DeviceReleased{}.EventType():         1,
	PodIPAssigned{}.EventType():          1,
	PodIPUnavailable{}.EventType():       1,
	IPAllocated{}.EventType():            1,
	IPReleased{}.EventType():             1,
	NodeScrapeFailed{}.EventType():       1,
	NodeScrapeRecovered{}.EventType():    1,
	KubeletTargetSet{}.EventType():       1,
	KubeletTargetRemoved{}.EventType():   1,
}

// UnmarshalEvent rebuilds an event from the type name and JSON payload it
// was stored under. It is the only way events come back from the log. The
// event is returned as a value (NodeRegistered, not *NodeRegistered), as
// DecideNode produces it and EvolveNode expects it. An unknown type fails
// with ErrUnknownEventType, wrapped with the name.
func UnmarshalEvent(eventType string, payload []byte) (Event, error) {
	dec, ok := eventDecoders[eventType]
	if !ok {
		return nil, fmt.Errorf("%w %q", ErrUnknownEventType, eventType)
	}
	e, err := dec(payload)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", eventType, err)
	}
	return e, nil
}

// SchemaVersion is the schema version of the payload herd writes for an
// event type today: 1 for every node event so far, 0 for a type the domain
// does not know.
func SchemaVersion(eventType string) int {
	return schemaVersions[eventType]
}

// EventTypes lists every event type UnmarshalEvent knows, sorted.
func EventTypes() []string {
	return slices.Sorted(maps.Keys(eventDecoders))
}

// decode unmarshals a payload into an event of type E.
func decode[E Event](payload []byte) (Event, error) {
	var e E
	if err := json.Unmarshal(payload, &e); err != nil {
		return nil, err
	}
	return e, nil
}
