package events_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mattn/go-sqlite3"

	"herd/events"
)

// TestSchemaRefusesAVersionStoredTwice writes raw SQL, bypassing the
// appends, to show the schema itself refuses a version of a stream
// stored twice, within one statement or after an earlier one. A gap is
// refused by the appends, which read the stream's version first
// (TestAppendPreparedChecksEachStreamAsTheAppendsBeforeLeaveIt and the
// log's contract), no longer by a trigger on every row.
func TestSchemaRefusesAVersionStoredTwice(t *testing.T) {
	tests := []struct {
		name     string
		before   []int // versions of node/a inserted first, one statement each
		versions []int // versions of node/a inserted by one multi-row INSERT
		wantErr  sqlite3.ErrNoExtended
		want     []string
	}{
		{name: "first rows of a stream", versions: []int{1, 2, 3}, want: []string{"1", "2", "3"}},
		{name: "continues a stream", before: []int{1, 2}, versions: []int{3, 4}, want: []string{"1", "2", "3", "4"}},
		{name: "repeat inside one statement", versions: []int{1, 1}, wantErr: sqlite3.ErrConstraintUnique},
		{name: "existing version", before: []int{1, 2}, versions: []int{2}, wantErr: sqlite3.ErrConstraintUnique},
		{name: "existing version among new ones", before: []int{1, 2}, versions: []int{3, 2}, wantErr: sqlite3.ErrConstraintUnique},
		{name: "version 0", versions: []int{0}, wantErr: sqlite3.ErrConstraintCheck},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := openSQLite(t)
			for _, v := range tt.before {
				if err := insertVersions(t, s, v); err != nil {
					t.Fatal(err)
				}
			}
			err := insertVersions(t, s, tt.versions...)
			var se sqlite3.Error
			switch {
			case tt.wantErr == 0 && err != nil:
				t.Fatal(err)
			case tt.wantErr != 0 && (!errors.As(err, &se) || se.ExtendedCode != tt.wantErr):
				t.Fatalf("insert %v = %v, want extended code %d", tt.versions, err, tt.wantErr)
			}
			want := tt.want
			if tt.wantErr != 0 {
				want = versionStrings(tt.before) // a failed statement leaves nothing
			}
			got := column(t, s.DB(), `SELECT version FROM events WHERE stream = 'node/a' ORDER BY version`)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("versions stored (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRetentionKeepsStreamsAppendable deletes old heartbeats, as the
// retention policy may: the stream continues after its highest version,
// and an append that expects a deleted version is refused.
func TestRetentionKeepsStreamsAppendable(t *testing.T) {
	s, _ := openSQLite(t)
	if err := insertVersions(t, s, 1, 2, 3, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(t.Context(), `DELETE FROM events WHERE stream = 'node/a' AND version < 4`); err != nil {
		t.Fatal(err)
	}
	appendAt := func(expected int64) error {
		tx, err := s.DB().BeginTx(t.Context(), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback() }()
		if _, err := s.Append(t.Context(), tx, "node/a", expected, events.Metadata{}, at, event(5)); err != nil {
			return err
		}
		return tx.Commit()
	}
	if err := appendAt(4); err != nil {
		t.Fatalf("append after retention: %v", err)
	}
	if err := appendAt(0); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("an append expecting a new stream: %v, want a conflict", err)
	}
	if err := appendAt(2); !errors.Is(err, events.ErrConflict) {
		t.Fatalf("an append expecting a deleted version: %v, want a conflict", err)
	}
}

func TestEventsAreNeverUpdated(t *testing.T) {
	s, _ := openSQLite(t)
	if err := insertVersions(t, s, 1); err != nil {
		t.Fatal(err)
	}
	_, err := s.DB().ExecContext(t.Context(), `UPDATE events SET type = 'Rewritten'`)
	var se sqlite3.Error
	if !errors.As(err, &se) || se.ExtendedCode != sqlite3.ErrConstraintTrigger {
		t.Fatalf("UPDATE = %v, want the trigger to refuse it", err)
	}
}

// insertVersions inserts events of node/a with the given versions in one
// statement and its own transaction.
func insertVersions(t *testing.T, s *events.Store, versions ...int) error {
	t.Helper()
	var (
		tuples []string
		args   []any
	)
	for _, v := range versions {
		tuples = append(tuples, "(?, 'node/a', ?, 'T', 1, 0, '{}')")
		args = append(args, fmt.Sprintf("id-%d-%d", v, len(args)), v)
	}
	_, err := s.DB().ExecContext(t.Context(),
		`INSERT INTO events (event_id, stream, version, type, schema_version, recorded_at, payload) VALUES `+strings.Join(tuples, ","), args...)
	return err
}

func versionStrings(vs []int) []string {
	var out []string
	for _, v := range vs {
		out = append(out, fmt.Sprint(v))
	}
	return out
}
