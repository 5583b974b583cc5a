package events

import (
	"context"
	"encoding/json"
)

// Metadata says who caused an event and why. It is stored beside every
// event as JSON and travels with it through subscriptions.
type Metadata struct {
	// Actor is who asked for the change: a user, a node, a reconciler.
	Actor string `json:"actor,omitempty"`
	// CausationID is the id of the event or request that directly caused
	// this one.
	CausationID string `json:"causationId,omitempty"`
	// CorrelationID is shared by everything that follows from one outside
	// request, however many hops later.
	CorrelationID string `json:"correlationId,omitempty"`
	// Source is the adapter the change came through (httpapi, kubelet,
	// rp2040, illumos, a reconciler name).
	Source string `json:"source,omitempty"`
}

// storedMetadata is an event's metadata as the log stores it: the
// Metadata and whether the event continues the write of the one before
// it (Record.Continues).
type storedMetadata struct {
	Metadata
	Continues bool `json:"continues,omitempty"`
}

// metadataJSON is the metadata column of an event with md that continues
// its write or not: nil when there is nothing to store.
func metadataJSON(md Metadata, continues bool) ([]byte, error) {
	if md.IsZero() && !continues {
		return nil, nil
	}
	return json.Marshal(storedMetadata{Metadata: md, Continues: continues})
}

// IsZero reports whether md carries nothing.
func (md Metadata) IsZero() bool { return md == Metadata{} }

// CausedBy is the metadata for an event caused by r: r is the cause, r's
// correlation (or r itself, if it started the chain) is kept, and actor and
// source name who is acting now.
func CausedBy(r Record, actor, source string) Metadata {
	correlation := r.Metadata.CorrelationID
	if correlation == "" {
		correlation = r.ID
	}
	return Metadata{Actor: actor, CausationID: r.ID, CorrelationID: correlation, Source: source}
}

type metadataKey struct{}

// WithMetadata returns a copy of ctx carrying md, for the edge that knows
// who is asking (an HTTP handler, an adapter, a reconciler) to hand it to
// the unit of work that appends. A cause and correlation ctx carries
// already (the event a reconciler reacts to) are kept where md has none.
func WithMetadata(ctx context.Context, md Metadata) context.Context {
	if was := MetadataFrom(ctx); md.CausationID == "" && was.CausationID != "" {
		md.CausationID, md.CorrelationID = was.CausationID, was.CorrelationID
	}
	return context.WithValue(ctx, metadataKey{}, md)
}

// Uncaused is ctx whose commands record no cause nor correlation,
// keeping its actor and source: for a decision a timer started (a probe,
// a silence noticed) made under a context that still carries the record
// that once queued the work.
func Uncaused(ctx context.Context) context.Context {
	md := MetadataFrom(ctx)
	md.CausationID, md.CorrelationID = "", ""
	return context.WithValue(ctx, metadataKey{}, md)
}

// MetadataFrom returns the metadata put in ctx by WithMetadata, or the zero
// Metadata.
func MetadataFrom(ctx context.Context) Metadata {
	md, _ := ctx.Value(metadataKey{}).(Metadata)
	return md
}

type streamCausesKey struct{}

// WithStreamCauses returns a copy of ctx in which what is appended to each
// stream of causes records that stream's record as its cause, and what is
// appended to any other stream the cause ctx carries already: a batch of
// commands over many objects (the scheduler's bindings), each decided
// from its own object's change, committed together.
func WithStreamCauses(ctx context.Context, causes map[string]Record) context.Context {
	return context.WithValue(ctx, streamCausesKey{}, causes)
}

// MetadataFor is the metadata of what is appended to stream under ctx:
// MetadataFrom's, with the cause WithStreamCauses gave stream, if any.
func MetadataFor(ctx context.Context, stream string) Metadata {
	md := MetadataFrom(ctx)
	causes, _ := ctx.Value(streamCausesKey{}).(map[string]Record)
	if r, ok := causes[stream]; ok {
		md = CausedBy(r, md.Actor, md.Source)
	}
	return md
}
