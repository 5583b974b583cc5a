package eventstest

import (
	"context"
	"testing"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// SubscribeFunc subscribes a consumer group to the log of s: the store's
// own Subscribe, or another subscriber over the same store (a Follower).
type SubscribeFunc func(ctx context.Context, s *events.Store, group string) (<-chan *message.Message, error)

// StoreSubscribe is the store's own Subscribe, as a SubscribeFunc.
func StoreSubscribe(ctx context.Context, s *events.Store, group string) (<-chan *message.Message, error) {
	return s.Subscribe(ctx, group)
}

// RunSubscriberContract runs the subscription part of the contract with
// subscribe: delivery in order, resuming after restarts, independent
// groups, concurrent publishers. Appends in it announce no commits, so a
// subscriber that waits for announcements needs a short fallback poll.
//
// redeliversOnClose says the subscriber may deliver once more, after a
// restart, the message whose ack came just as it was closed (watermill's
// SQL subscriber picks at random between the ack and the close); nothing
// acked before that may come again, and nothing may be skipped.
func RunSubscriberContract(t *testing.T, open OpenFunc, subscribe SubscribeFunc, redeliversOnClose bool) {
	tests := []struct {
		name string
		run  func(t *testing.T, open OpenFunc, subscribe SubscribeFunc, redeliversOnClose bool)
	}{
		{"ConsumerGroupResumesAfterRestart", testResumeAfterRestart},
		{"ConsumerGroupsAreIndependent", testGroupsIndependent},
		{"SubscriberUnderConcurrentPublishers", testSubscriberUnderConcurrentPublishers},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, open, subscribe, redeliversOnClose)
		})
	}
}

// testResumeAfterRestart consumes part of the log, closes the store (as a
// stopping process does) and reopens it: the group resumes exactly after
// the last event it acked (or, where redeliversOnClose, at that event
// again).
func testResumeAfterRestart(t *testing.T, open OpenFunc, subscribe SubscribeFunc, redeliversOnClose bool) {
	s, reopen := open(t)
	var appended []events.Record
	for i := range 10 {
		appended = append(appended, AppendCommit(t, s.Log(), "node/a", int64(i), events.Metadata{Source: "test"}, t0, ev("A", i))...)
	}
	msgs, err := subscribe(t.Context(), s, "health")
	if err != nil {
		t.Fatal(err)
	}
	got := ReceiveN(t, msgs, 4)
	if diff := cmp.Diff(appended[:4], got); diff != "" {
		t.Fatalf("first four delivered (-want +got):\n%s", diff)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	WaitClosed(t, msgs)

	s = reopen(t)
	msgs, err = subscribe(t.Context(), s, "health")
	if err != nil {
		t.Fatal(err)
	}
	from := 4
	first := Receive(t, msgs)
	if redeliversOnClose && first.Position == appended[3].Position {
		from = 3 // the fourth event's ack raced the close
	}
	got = append([]events.Record{first}, ReceiveN(t, msgs, len(appended)-from-1)...)
	if diff := cmp.Diff(appended[from:], got); diff != "" {
		t.Fatalf("after restart, delivered (-want +got):\n%s", diff)
	}
	more := AppendCommit(t, s.Log(), "node/a", 10, events.Metadata{}, t0, ev("A", 10), ev("A", 11))
	got = ReceiveN(t, msgs, 2)
	if diff := cmp.Diff(more, got); diff != "" {
		t.Fatalf("new events delivered (-want +got):\n%s", diff)
	}
}

// testGroupsIndependent checks that one group's acks do not move another,
// and that cancelling a subscription's context keeps what it acked.
func testGroupsIndependent(t *testing.T, open OpenFunc, subscribe SubscribeFunc, _ bool) {
	s, _ := open(t)
	appended := AppendCommit(t, s.Log(), "node/a", 0, events.Metadata{}, t0, ev("A", 1), ev("A", 2), ev("A", 3), ev("A", 4), ev("A", 5), ev("A", 6))

	ctx, cancel := context.WithCancel(t.Context())
	a, err := subscribe(ctx, s, "a")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(appended[:3], ReceiveN(t, a, 3)); diff != "" {
		t.Fatalf("group a (-want +got):\n%s", diff)
	}
	// The subscriber holds the write lock until its batch is acked or
	// abandoned, so group b waits for group a to stop.
	cancel()
	WaitClosed(t, a)

	b, err := subscribe(t.Context(), s, "b")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(appended, ReceiveN(t, b, 6)); diff != "" {
		t.Fatalf("group b (-want +got):\n%s", diff)
	}
	a, err = subscribe(t.Context(), s, "a")
	if err != nil {
		t.Fatal(err)
	}
	// Delivery is at-least-once: the message whose ack raced the
	// cancellation may come again, but nothing acked earlier does, and
	// nothing is skipped.
	first := Receive(t, a)
	if first.Position != 3 && first.Position != 4 {
		t.Fatalf("group a resumed at position %d, want 4 (or 3 again, at least once)", first.Position)
	}
	rest := ReceiveN(t, a, int(6-first.Position))
	if diff := cmp.Diff(appended[first.Position-1:], append([]events.Record{first}, rest...)); diff != "" {
		t.Fatalf("group a after resubscribing (-want +got):\n%s", diff)
	}
}

// testSubscriberUnderConcurrentPublishers appends from several goroutines
// while a group consumes: every event arrives exactly once, in position
// order.
func testSubscriberUnderConcurrentPublishers(t *testing.T, open OpenFunc, subscribe SubscribeFunc, _ bool) {
	s, _ := open(t)
	const publishers, perPublisher = 8, 250
	msgs, err := subscribe(t.Context(), s, "reconciler")
	if err != nil {
		t.Fatal(err)
	}
	appendConcurrently(t, msgs, publishers, perPublisher, func(int) events.Log { return s.Log() })
	// Nothing more is pending: the next delivery is the next append.
	sentinel := AppendCommit(t, s.Log(), "sentinel", 0, events.Metadata{}, t0, ev("Sentinel", 0))
	if diff := cmp.Diff(sentinel[0], Receive(t, msgs)); diff != "" {
		t.Errorf("after all appends, delivered (-want +got):\n%s", diff)
	}
}
