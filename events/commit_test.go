package events_test

import (
	"database/sql"
	"testing"

	"herd/events"
)

func TestCommitAnnouncesWhatTheTransactionAppended(t *testing.T) {
	tests := []struct {
		name string
		// run appends (or not) in tx and returns the head it should
		// announce; 0 means none.
		run func(t *testing.T, s *events.Store) int64
	}{
		{name: "an append of three", run: func(t *testing.T, s *events.Store) int64 {
			tx := begin(t, s)
			recs := appendIn(t, s, tx, "node/a", 0, 3)
			commit(t, s, tx)
			return recs[2].Position
		}},
		{name: "two streams in one transaction", run: func(t *testing.T, s *events.Store) int64 {
			tx := begin(t, s)
			appendIn(t, s, tx, "node/a", 0, 1)
			recs := appendIn(t, s, tx, "node/b", 0, 2)
			commit(t, s, tx)
			return recs[1].Position
		}},
		{name: "nothing appended", run: func(t *testing.T, s *events.Store) int64 {
			commit(t, s, begin(t, s))
			return 0
		}},
		{name: "after a rolled-back append, nothing appended", run: func(t *testing.T, s *events.Store) int64 {
			tx := begin(t, s)
			appendIn(t, s, tx, "node/a", 0, 1)
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
			commit(t, s, begin(t, s))
			return 0
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openFollowed(0, 0)(t)
			_, signal := s.CommitSignal()
			want := tt.run(t, s)
			head, _ := s.CommitSignal()
			if head != want {
				t.Errorf("announced head %d, want %d", head, want)
			}
			select {
			case <-signal:
				if want == 0 {
					t.Error("followers were woken though nothing was appended")
				}
			default:
				if want != 0 {
					t.Error("followers were not woken")
				}
			}
		})
	}
}

func begin(t *testing.T, s *events.Store) *sql.Tx {
	t.Helper()
	tx, err := s.DB().BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

func appendIn(t *testing.T, s *events.Store, tx *sql.Tx, stream string, expected int64, n int) []events.Record {
	t.Helper()
	evs := make([]events.NewEvent, n)
	for i := range evs {
		evs[i] = events.NewEvent{Type: "Happened", Payload: []byte("{}")}
	}
	recs, err := s.Append(t.Context(), tx, stream, expected, events.Metadata{}, t0, evs...)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

func commit(t *testing.T, s *events.Store, tx *sql.Tx) {
	t.Helper()
	if err := s.Commit(tx); err != nil {
		t.Fatal(err)
	}
}
