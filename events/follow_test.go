package events_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/events/eventstest"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// openFollowed opens a log whose followers fall back to polling every
// follow and save their position every save.
func openFollowed(follow, save time.Duration) eventstest.OpenFunc {
	return func(t *testing.T) (*events.Store, func(t *testing.T) *events.Store) {
		path := filepath.Join(t.TempDir(), "herd.db")
		open := func(t *testing.T) *events.Store {
			t.Helper()
			s, err := events.Open(t.Context(), events.Config{Path: path, PollInterval: testPollInterval,
				FollowInterval: follow, FollowSaveInterval: save}, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := s.Close(); err != nil {
					t.Error(err)
				}
			})
			return s
		}
		return open(t), open
	}
}

func follow(ctx context.Context, s *events.Store, group string) (<-chan *message.Message, error) {
	f, err := s.NewFollower(events.FollowerConfig{Group: group})
	if err != nil {
		return nil, err
	}
	return f.Subscribe(ctx, events.Topic)
}

// The contract's appends announce no commits: only the fallback poll
// finds them, so it is short here.
func TestFollowerContract(t *testing.T) {
	eventstest.RunSubscriberContract(t, openFollowed(5*time.Millisecond, time.Hour), follow, false)
}

// appendOne appends one event to stream at version expected and returns
// its position, announcing the commit when announce is set.
func appendOne(t *testing.T, s *events.Store, stream string, expected int64, announce bool) int64 {
	t.Helper()
	tx, err := s.DB().BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	recs, err := s.Append(t.Context(), tx, stream, expected, events.Metadata{}, t0, events.NewEvent{Type: "Happened", Payload: []byte("{}")})
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if announce {
		s.Committed(recs[0].Position)
	}
	return recs[0].Position
}

func receive(t *testing.T, msgs <-chan *message.Message, within time.Duration) (*message.Message, bool) {
	t.Helper()
	timer := time.NewTimer(within)
	defer timer.Stop()
	select {
	case m := <-msgs:
		return m, true
	case <-timer.C:
		return nil, false
	}
}

// With an hour between fallback polls, only the commit signal can explain
// a delivery within the wait.
func TestACommitSignalWakesTheFollowerAtOnce(t *testing.T) {
	s, _ := openFollowed(time.Hour, time.Hour)(t)
	f, err := s.NewFollower(events.FollowerConfig{Group: "g"})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := f.Subscribe(t.Context(), events.Topic)
	if err != nil {
		t.Fatal(err)
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return f.Reads() >= 1 }, "the follower reads the empty log")
	for i := range 3 {
		pos := appendOne(t, s, "node/a", int64(i), true)
		m, ok := receive(t, msgs, eventstest.WaitFor)
		if !ok {
			t.Fatalf("position %d not delivered after its commit was announced", pos)
		}
		r, err := events.RecordFromMessage(m)
		if err != nil {
			t.Fatal(err)
		}
		m.Ack()
		if r.Position != pos {
			t.Fatalf("delivered position %d, want %d", r.Position, pos)
		}
	}
}

func TestAnIdleFollowerWritesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "herd.db")
	s, err := events.Open(t.Context(), events.Config{Path: path, FollowInterval: time.Millisecond, FollowSaveInterval: time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	f, err := s.NewFollower(events.FollowerConfig{Group: "g"})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := f.Subscribe(t.Context(), events.Topic)
	if err != nil {
		t.Fatal(err)
	}
	last := appendOne(t, s, "node/a", 0, false)
	m, ok := receive(t, msgs, eventstest.WaitFor)
	if !ok {
		t.Fatal("nothing delivered")
	}
	m.Ack()
	// Once the position it moved to is saved, the follower is idle.
	eventstest.Eventually(t, eventstest.WaitFor, func() bool {
		off, err := s.ConsumerOffset(t.Context(), "g")
		return err == nil && off == last
	}, "position %d is saved", last)

	other, err := events.OpenDB(t.Context(), path, events.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = other.Close() }()
	conn, err := other.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	before, reads := eventstest.DataVersion(t, conn), f.Reads()
	// The probe holds the write lock meanwhile: a poll that wanted it
	// would wait behind it, and the polls would stop.
	eventstest.HoldWriteLock(t, conn, func() {
		eventstest.Eventually(t, eventstest.WaitFor, func() bool { return f.Reads() >= reads+20 }, "twenty fallback polls while another connection holds the write lock")
	})
	if after := eventstest.DataVersion(t, conn); after != before {
		t.Errorf("data_version went from %d to %d over twenty idle polls: the idle follower wrote", before, after)
	}
}

func TestANewFollowerStartsWhereTheSlowestGroupItReplacesStood(t *testing.T) {
	tests := []struct {
		name   string
		groups map[string]int64
		want   int64 // the first position delivered
	}{
		{name: "no groups before it", want: 1},
		{name: "old groups", groups: map[string]int64{"reconciler-a": 5, "reconciler-b": 3, "other": 1}, want: 4},
		{name: "its own position wins", groups: map[string]int64{"reconcilers": 6, "reconciler-b": 3}, want: 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openFollowed(5*time.Millisecond, time.Hour)(t)
			for i := range 8 {
				appendOne(t, s, "node/a", int64(i), false)
			}
			for g, off := range tt.groups {
				if _, err := s.DB().ExecContext(t.Context(), `INSERT INTO consumer_offsets (consumer_group, offset_acked) VALUES (?, ?)`, g, off); err != nil {
					t.Fatal(err)
				}
			}
			f, err := s.NewFollower(events.FollowerConfig{Group: "reconcilers", Inherit: "reconciler-"})
			if err != nil {
				t.Fatal(err)
			}
			msgs, err := f.Subscribe(t.Context(), events.Topic)
			if err != nil {
				t.Fatal(err)
			}
			if got := eventstest.Receive(t, msgs).Position; got != tt.want {
				t.Errorf("first position delivered = %d, want %d", got, tt.want)
			}
		})
	}
}

// A stored event that cannot be read comes as a message that says so, and
// the follower moves on past it once it is acked. Its metadata is JSON
// (the audit indexes read fields of it as rows are written, so SQLite
// refuses a row whose metadata is not JSON at all) but not herd's: an
// actor that is a number.
func TestAnUnreadableEventIsDeliveredAsSuch(t *testing.T) {
	s, _ := openFollowed(5*time.Millisecond, time.Hour)(t)
	appendOne(t, s, "node/a", 0, false)
	if _, err := s.DB().ExecContext(t.Context(), `INSERT INTO events (event_id, stream, version, type, schema_version, recorded_at, payload, metadata)
		VALUES ('bad', 'node/b', 1, 'Happened', 1, 0, '{}', '{"actor": 5}')`); err != nil {
		t.Fatal(err)
	}
	appendOne(t, s, "node/a", 1, false)
	msgs, err := follow(t.Context(), s, "g")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for range 3 {
		m, ok := receive(t, msgs, eventstest.WaitFor)
		if !ok {
			t.Fatalf("delivered %v, then nothing", got)
		}
		r, err := events.RecordFromMessage(m)
		if err != nil {
			got = append(got, "unreadable")
		} else {
			got = append(got, fmt.Sprint(r.Position))
		}
		m.Ack()
	}
	if diff := cmp.Diff([]string{"1", "unreadable", "3"}, got); diff != "" {
		t.Errorf("delivered (-want +got):\n%s", diff)
	}
}

// A nacked message comes again, and nothing after it comes first.
func TestANackedMessageIsDeliveredAgain(t *testing.T) {
	s, _ := openFollowed(5*time.Millisecond, time.Hour)(t)
	appendOne(t, s, "node/a", 0, false)
	appendOne(t, s, "node/a", 1, false)
	msgs, err := follow(t.Context(), s, "g")
	if err != nil {
		t.Fatal(err)
	}
	m, ok := receive(t, msgs, eventstest.WaitFor)
	if !ok {
		t.Fatal("nothing delivered")
	}
	m.Nack()
	var got []int64
	for range 2 {
		got = append(got, eventstest.Receive(t, msgs).Position)
	}
	if diff := cmp.Diff([]int64{1, 2}, got); diff != "" {
		t.Errorf("after a nack, delivered (-want +got):\n%s", diff)
	}
}

// A follower's configuration is checked when it is made, every problem
// named at once.
func TestFollowerConfigIsValidated(t *testing.T) {
	s, _ := openFollowed(time.Hour, time.Hour)(t)
	_, err := s.NewFollower(events.FollowerConfig{PollInterval: -time.Second, SaveInterval: -time.Second, BatchSize: -1, RedeliverAfter: -time.Second})
	if err == nil {
		t.Fatal("a follower without a group and with negative settings was made")
	}
	for _, setting := range []string{"Group", "PollInterval", "SaveInterval", "BatchSize", "RedeliverAfter"} {
		if !strings.Contains(err.Error(), setting) {
			t.Errorf("error %q does not name %s", err, setting)
		}
	}
}
