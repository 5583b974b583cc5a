package watch

import (
	"sync"
	"sync/atomic"

	"herd/events"
)

// The write path folds every event it commits into the object's new
// state (the command layer's prepared state, the one the next command on
// the object starts from), and the hub, reading the same events back from
// the log, folds them again into a state of its own: two copies of every
// node's conditions, labels and addresses, and of every lease, for one
// value. Adopt lets the hub take the state the writer computed instead:
// at 100,000 nodes that is about a copy of every node and every lease
// less on the heap, and a decode and fold less per heartbeat.
//
// Adoption changes no answer: the writer's state is the fold of the same
// events from the same state by the same functions (a kind's Fold and the
// command layer's both call the aggregate's evolve), and the hub only
// takes it for the event whose position the writer names, for the stream
// it names, having folded everything before it itself. Any event without
// an offer (another replica's, a write whose offer was dropped) is folded
// as before.

// maxOffers bounds the states waiting for the hub. The hub takes them
// within a poll interval; when it is far behind, an offer is dropped
// and the hub folds the event itself.
const maxOffers = 1 << 16

// offers are the states the writer committed that the hub has not yet
// read up to, by stream.
type offers struct {
	mu      sync.Mutex
	pending map[string]offer
	taken   atomic.Int64

	// unoffered, once the writer says (ExpectOffers), reports whether a
	// stream has a commit under way in the writer whose state is not
	// offered yet: marked before the commit makes its events readable,
	// unmarked after its states are offered.
	unoffered atomic.Pointer[func(stream string) bool]
	// awaiting says the hub stopped reading at such a commit and waits
	// on wake, which the writer's settle sends once it has offered.
	awaiting atomic.Bool
	wake     chan struct{}
	// made counts the offers made; seen is made as of the hub's last
	// take (the hub's alone), so that it takes again only when an offer
	// came since.
	made atomic.Int64
	seen int64
}

// offer is an object's state as of the event at pos.
type offer struct {
	pos   int64
	state any
}

// Adopt offers the hub s, the state of the object in stream as of the
// event at pos, computed by the process that committed that event. The
// state must not be changed afterwards, as the command layer's states
// never are. It is cheap (a map write under its own lock), so the write
// path can call it after every commit; an offer for an event the hub has
// already read is dropped at its next poll.
func (h *Hub) Adopt(stream string, pos int64, s any) {
	o := &h.offers
	o.mu.Lock()
	if o.pending == nil {
		o.pending = map[string]offer{}
	}
	if _, ok := o.pending[stream]; ok || len(o.pending) < maxOffers {
		o.pending[stream] = offer{pos: pos, state: s}
		o.made.Add(1)
	}
	o.mu.Unlock()
}

// ExpectOffers tells the hub that the writer offers the states of its
// commits, and which streams have a commit whose states are not offered
// yet (unoffered: true from before the commit's events can be read until
// after its states are offered). The hub then never folds a write of
// such a stream that it finds no offer for: it stops reading there and
// waits for the settle it returns, which the writer calls after each
// commit's states are offered. Without it, a read woken by one commit
// could find the next commit's events before their states are offered,
// and fold a copy of its own.
func (h *Hub) ExpectOffers(unoffered func(stream string) bool) (settle func()) {
	h.offers.unoffered.Store(&unoffered)
	return h.offers.settle
}

// settle wakes the hub if it waits for offers.
func (o *offers) settle() {
	if o.awaiting.CompareAndSwap(true, false) {
		select {
		case o.wake <- struct{}{}:
		default:
		}
	}
}

// settled returns how many of recs, from the start, the hub may read
// now, with p and the offers made since, once it was taken: all, unless
// a write without an offer is of a stream whose commit has not offered
// its state yet (ExpectOffers), which it stops before. A write whose
// stream is not waiting may have been offered after p was taken: the
// offers are taken again then, so that the mark, cleared after the
// offer, is never read as cleared without the offer being seen.
func (o *offers) settled(recs []events.Record, p map[string]offer) (map[string]offer, int) {
	unoffered := o.unoffered.Load()
	if unoffered == nil {
		return p, len(recs)
	}
	start := 0 // where the write of recs[i] starts
	for i, rec := range recs {
		if i > 0 && !sameWrite(recs[i-1], rec) {
			start = i
		}
		if i+1 < len(recs) && sameWrite(rec, recs[i+1]) {
			continue // offers are of a write's last event
		}
		if off, ok := p[rec.Stream]; ok && off.pos == rec.Position {
			continue
		}
		o.awaiting.Store(true) // before the mark is read: settle then wakes
		if (*unoffered)(rec.Stream) {
			return p, start
		}
		o.awaiting.Store(false)
		if o.made.Load() != o.seen {
			p = merged(p, o.take())
		}
	}
	return p, len(recs)
}

// merged is p with the offers of more, the later of two for a stream.
func merged(p, more map[string]offer) map[string]offer {
	if p == nil {
		return more
	}
	for stream, off := range more {
		if cur, ok := p[stream]; !ok || off.pos > cur.pos {
			p[stream] = off
		}
	}
	return p
}

// Adopted is how many objects' states the hub took from the writer
// rather than folded.
func (h *Hub) Adopted() int64 { return h.offers.taken.Load() }

// take swaps out the offers for one poll; put gives back those past up
// to, for a later poll.
func (o *offers) take() map[string]offer {
	o.mu.Lock()
	defer o.mu.Unlock()
	p := o.pending
	o.pending = nil
	o.seen = o.made.Load()
	return p
}

func (o *offers) put(p map[string]offer, upTo int64) {
	if len(p) == 0 {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for stream, off := range p {
		if off.pos <= upTo {
			continue
		}
		if o.pending == nil {
			o.pending = map[string]offer{}
		}
		if cur, ok := o.pending[stream]; ok && cur.pos >= off.pos {
			continue // a newer offer came in meanwhile
		}
		o.pending[stream] = off
	}
}

// adopted is the object after rec as the writer offered it, when p holds
// an offer for rec's stream at rec's position of the kind's state type.
func adopted(k resource, p map[string]offer, prev *Object, rec events.Record) (*Object, bool) {
	off, ok := p[rec.Stream]
	if !ok || off.pos != rec.Position {
		return nil, false
	}
	return k.adopt(prev, rec, off.state)
}

// adopt is the object after rec with s as its state, when s is an S.
func (k *Kind[S]) adopt(prev *Object, rec events.Record, s any) (*Object, bool) {
	st, ok := s.(S)
	if !ok {
		return nil, false
	}
	return k.objectBoxed(rec.Stream, st, s, rec.Position).sharingMeta(prev), true
}
