package projections

import (
	"bytes"
	"context"
	"fmt"

	"herd/domain"
	"herd/events"
)

// snapshotCheckPage is how many snapshots VerifySnapshots reads at once.
const snapshotCheckPage = 512

// VerifySnapshots checks every snapshot the log keeps (events.Snapshots)
// against its stream folded from the log's first event up to the
// snapshot's position, encoded as the watch hub encodes what it
// snapshots. It returns how many it checked and the first that differs,
// or nil. A snapshot that a deletion of events dropped while it was being
// checked is not a difference.
func VerifySnapshots(ctx context.Context, log events.Log) (int, *Difference, error) {
	var (
		n       int
		after   string
		afterAt int64
	)
	for {
		snaps, err := log.ReadSnapshots(ctx, after, afterAt, snapshotCheckPage)
		if err != nil {
			return n, nil, fmt.Errorf("verify snapshots: %w", err)
		}
		for _, s := range snaps {
			d, err := checkSnapshot(ctx, log, s)
			if err != nil || d != nil {
				return n, d, err
			}
			n++
		}
		if len(snaps) < snapshotCheckPage {
			return n, nil, nil
		}
		last := snaps[len(snaps)-1]
		after, afterAt = last.Stream, last.Position
	}
}

// checkSnapshot folds s's stream up to its position and compares.
func checkSnapshot(ctx context.Context, log events.Log, s events.Snapshot) (*Difference, error) {
	key := fmt.Sprintf("%s at %d", s.Stream, s.Position)
	v, ok := viewOf(s.Stream)
	if !ok {
		return &Difference{Table: "snapshots", Key: key, Live: string(s.State), Rebuilt: "(no aggregate owns the stream)"}, nil
	}
	recs, err := log.ReadStreamRange(ctx, s.Stream, 0, s.Position)
	if err != nil {
		return nil, fmt.Errorf("verify snapshots: %w", err)
	}
	want, version, err := v.snapshotOf(recs)
	if err != nil {
		return nil, fmt.Errorf("verify snapshots: %s: %w", key, err)
	}
	if version == s.Version && (bytes.Equal(want, s.State) || sameNodeAsHeard(s.Stream, want, s.State)) {
		return nil, nil
	}
	// A deletion of events drops the snapshots it makes untrue in its
	// own transaction: one gone since is no difference.
	still, _, err := log.ReadFromSnapshot(ctx, s.Stream, s.Position)
	if err != nil {
		return nil, fmt.Errorf("verify snapshots: %w", err)
	}
	if still == nil || still.Position != s.Position {
		return nil, nil
	}
	return &Difference{
		Table: "snapshots", Key: key,
		Live:    fmt.Sprintf("version %d %s", s.Version, s.State),
		Rebuilt: fmt.Sprintf("version %d %s", version, want),
	}, nil
}

// snapshotOf folds recs, a stream's events from its first, and returns
// the state encoded as a snapshot holds it and the stream version it
// reflects.
func (a *aggregate[S]) snapshotOf(recs []events.Record) ([]byte, int64, error) {
	var (
		s       S
		version int64
		err     error
	)
	for _, rec := range recs {
		if s, err = a.fold(s, rec); err != nil {
			return nil, 0, err
		}
		version = rec.Version
	}
	data, err := marshalStored(s)
	return data, version, err
}

// sameNodeAsHeard reports whether two encodings of a node stream's state
// are the same node once its conditions' times are read as a client sees
// them (domain.Node.Heard): a snapshot an earlier herd took holds every
// condition's LastHeartbeatTime, where a node folded now holds a zero
// time for a condition heard with the node.
func sameNodeAsHeard(stream string, a, b []byte) bool {
	if agg, ok := domain.AggregateOf(stream); !ok || agg != domain.NodeAggregate {
		return false
	}
	var na, nb domain.Node
	if unmarshalStored(a, &na) != nil || unmarshalStored(b, &nb) != nil {
		return false
	}
	ea, errA := marshalStored(na.Heard())
	eb, errB := marshalStored(nb.Heard())
	return errA == nil && errB == nil && bytes.Equal(ea, eb)
}
