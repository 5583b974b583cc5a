package eventstest

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"herd/events"
)

// testDataAtHead reads a view's rows with the log head: the head comes
// back with the rows, and without any when none match.
func testDataAtHead(t *testing.T, open OpenFunc) {
	s, _ := open(t)
	ctx := t.Context()
	if _, err := s.DB().ExecContext(ctx, `CREATE TABLE things (name TEXT PRIMARY KEY, data BLOB)`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, `INSERT INTO things VALUES ('b', 'two'), ('a', 'one')`); err != nil {
		t.Fatal(err)
	}
	data, head, err := s.DataAtHead(ctx, s.DB(), `things r ORDER BY r.name`)
	if err != nil || head != 0 {
		t.Fatalf("empty log: head %d, %v; want 0", head, err)
	}
	if diff := cmp.Diff([][]byte{[]byte("one"), []byte("two")}, data); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
	recs := AppendCommit(t, s.Log(), "a/1", 0, events.Metadata{}, t0, ev("A", 1), ev("B", 2))
	data, head, err = s.DataAtHead(ctx, s.DB(), `things r ON r.name = ? ORDER BY r.name`, "zzz")
	if err != nil || len(data) != 0 || head != recs[1].Position {
		t.Errorf("no rows: %d rows at head %d, %v; want none at %d", len(data), head, err, recs[1].Position)
	}
}
