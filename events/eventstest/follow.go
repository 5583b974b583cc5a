package eventstest

import (
	"context"
	"testing"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// runFollowContract runs the follower's part of the log contract: an
// events.Follower over the log delivers it to a consumer group in
// position order from where the group stands, keeps that place in the
// log's database, and is woken by commits, another process's included.
func runFollowContract(t *testing.T, open OpenLogFunc, o logOptions) {
	tests := []struct {
		name string
		run  func(t *testing.T, open OpenLogFunc, o logOptions)
	}{
		{"FromTheGroupsPosition", testFollowFromGroupPosition},
		{"ResumesAfterClose", testFollowResumesAfterClose},
		{"GroupsAreIndependent", testFollowGroupsIndependent},
		{"WokenByAnotherProcess", testFollowWokenByAnotherProcess},
		{"UnderConcurrentAppenders", testFollowUnderConcurrentAppenders},
		{"Inherit", testFollowInherit},
		{"SharingReads", testFollowSharingReads},
		{"AcrossTheWindow", testFollowAcrossTheWindow},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.run(t, open, o)
		})
	}
}

// follow subscribes a new follower of l, until ctx ends or l closes.
func follow(ctx context.Context, t *testing.T, l events.Log, cfg events.FollowerConfig) (*events.Follower, <-chan *message.Message) {
	t.Helper()
	f, err := events.NewFollower(l, cfg)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := f.Subscribe(ctx, events.Topic)
	if err != nil {
		t.Fatal(err)
	}
	return f, msgs
}

// acked waits until f has taken the ack of the message at pos: from then
// on, the position it saves is at least pos.
func acked(t *testing.T, f *events.Follower, pos int64) {
	t.Helper()
	Eventually(t, WaitFor, func() bool { return f.Position() >= pos }, "the follower takes the ack of %d; it is at %d", pos, f.Position())
}

// groupPosition is where group stands in l, failing t on an error.
func groupPosition(t *testing.T, l events.Log, group string) int64 {
	t.Helper()
	pos, err := l.GroupPosition(t.Context(), group, "")
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

// testFollowFromGroupPosition: a follower starts after the position its
// group saved, delivers what follows in position order, then what is
// appended later, as it is committed.
func testFollowFromGroupPosition(t *testing.T, open OpenLogFunc, _ logOptions) {
	l, _ := open(t)
	appended := AppendCommit(t, l, "node/a", 0, events.Metadata{Actor: "a"}, t0, ev("A", 1), ev("A", 2), ev("A", 3), ev("A", 4), ev("A", 5))
	if err := l.SaveGroupPosition(t.Context(), "g", appended[1].Position); err != nil {
		t.Fatal(err)
	}
	f, msgs := follow(t.Context(), t, l, events.FollowerConfig{Group: "g"})
	if got := f.Position(); got != appended[1].Position {
		t.Errorf("Position before any ack = %d, want the group's %d", got, appended[1].Position)
	}
	if diff := cmp.Diff(appended[2:], ReceiveN(t, msgs, 3)); diff != "" {
		t.Fatalf("delivered from the group's position (-want +got):\n%s", diff)
	}
	more := AppendCommit(t, l, "node/b", 0, events.Metadata{Source: "test"}, t0, ev("B", 1), ev("B", 2))
	if diff := cmp.Diff(more, ReceiveN(t, msgs, 2)); diff != "" {
		t.Fatalf("delivered after a later commit (-want +got):\n%s", diff)
	}
	acked(t, f, more[1].Position)
}

// testFollowResumesAfterClose: closing the log closes its followers, each
// saving the position it acked; opened again, the group resumes right
// after it.
func testFollowResumesAfterClose(t *testing.T, open OpenLogFunc, _ logOptions) {
	l, reopen := open(t)
	appended := AppendCommit(t, l, "node/a", 0, events.Metadata{}, t0, ev("A", 1), ev("A", 2), ev("A", 3), ev("A", 4), ev("A", 5), ev("A", 6))
	f, msgs := follow(t.Context(), t, l, events.FollowerConfig{Group: "health"})
	if diff := cmp.Diff(appended[:4], ReceiveN(t, msgs, 4)); diff != "" {
		t.Fatalf("first four delivered (-want +got):\n%s", diff)
	}
	acked(t, f, appended[3].Position)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	WaitClosed(t, msgs)

	l = reopen(t)
	if got := groupPosition(t, l, "health"); got != appended[3].Position {
		t.Fatalf("saved position %d, want %d, the last acked", got, appended[3].Position)
	}
	_, msgs = follow(t.Context(), t, l, events.FollowerConfig{Group: "health"})
	if diff := cmp.Diff(appended[4:], ReceiveN(t, msgs, 2)); diff != "" {
		t.Fatalf("after reopening, delivered (-want +got):\n%s", diff)
	}
	more := AppendCommit(t, l, "node/a", 6, events.Metadata{}, t0, ev("A", 7))
	if diff := cmp.Diff(more[0], Receive(t, msgs)); diff != "" {
		t.Fatalf("appended after reopening, delivered (-want +got):\n%s", diff)
	}
}

// testFollowGroupsIndependent: one group's acks do not move another's
// position, and a subscription whose context ends keeps what it acked.
func testFollowGroupsIndependent(t *testing.T, open OpenLogFunc, _ logOptions) {
	l, _ := open(t)
	appended := AppendCommit(t, l, "node/a", 0, events.Metadata{}, t0, ev("A", 1), ev("A", 2), ev("A", 3), ev("A", 4), ev("A", 5), ev("A", 6))

	ctx, cancel := context.WithCancel(t.Context())
	fa, a := follow(ctx, t, l, events.FollowerConfig{Group: "a"})
	if diff := cmp.Diff(appended[:3], ReceiveN(t, a, 3)); diff != "" {
		t.Fatalf("group a (-want +got):\n%s", diff)
	}
	acked(t, fa, appended[2].Position)
	cancel()
	WaitClosed(t, a) // closed once the position is saved

	fb, b := follow(t.Context(), t, l, events.FollowerConfig{Group: "b"})
	if diff := cmp.Diff(appended, ReceiveN(t, b, 6)); diff != "" {
		t.Fatalf("group b, after group a stopped at 3 (-want +got):\n%s", diff)
	}
	acked(t, fb, appended[5].Position)
	if err := fb.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := groupPosition(t, l, "a"), appended[2].Position; got != want {
		t.Errorf("group a saved %d, want %d", got, want)
	}
	if got, want := groupPosition(t, l, "b"), appended[5].Position; got != want {
		t.Errorf("group b saved %d, want %d", got, want)
	}

	_, a = follow(t.Context(), t, l, events.FollowerConfig{Group: "a"})
	if diff := cmp.Diff(appended[3:], ReceiveN(t, a, 3)); diff != "" {
		t.Fatalf("group a after resubscribing (-want +got):\n%s", diff)
	}
}
