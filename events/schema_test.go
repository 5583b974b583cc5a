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

// TestNoGapTrigger writes raw SQL, bypassing Append, to show the schema
// itself refuses gaps and duplicates, row by row within one statement.
func TestNoGapTrigger(t *testing.T) {
	tests := []struct {
		name     string
		before   []int // versions of node/a inserted first, one statement each
		versions []int // versions of node/a inserted by one multi-row INSERT
		wantErr  sqlite3.ErrNoExtended
		want     []string
	}{
		{name: "first rows of a stream", versions: []int{1, 2, 3}, want: []string{"1", "2", "3"}},
		{name: "continues a stream", before: []int{1, 2}, versions: []int{3, 4}, want: []string{"1", "2", "3", "4"}},
		{name: "must start at 1", versions: []int{2}, wantErr: sqlite3.ErrConstraintTrigger},
		{name: "gap inside one statement", versions: []int{1, 2, 4}, wantErr: sqlite3.ErrConstraintTrigger},
		{name: "repeat inside one statement", versions: []int{1, 1}, wantErr: sqlite3.ErrConstraintTrigger},
		{name: "existing version", before: []int{1, 2}, versions: []int{2}, wantErr: sqlite3.ErrConstraintTrigger},
		{name: "gap after existing", before: []int{1}, versions: []int{3}, wantErr: sqlite3.ErrConstraintTrigger},
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
// retention policy may: the stream continues after its highest version.
func TestRetentionKeepsStreamsAppendable(t *testing.T) {
	s, _ := openSQLite(t)
	if err := insertVersions(t, s, 1, 2, 3, 4); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(t.Context(), `DELETE FROM events WHERE stream = 'node/a' AND version < 4`); err != nil {
		t.Fatal(err)
	}
	if err := insertVersions(t, s, 5); err != nil {
		t.Fatalf("append after retention: %v", err)
	}
	if err := insertVersions(t, s, 1); err == nil {
		t.Fatal("a deleted version was stored again")
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
