package events

import (
	"errors"
	"strings"
	"testing"

	wsql "github.com/ThreeDotsLabs/watermill-sql/v4/pkg/sql"
	"github.com/ThreeDotsLabs/watermill/message"
)

// TestInsertQueryRefusesForeignMessages covers publishing to the events
// table without Append, as a stray watermill publisher would.
func TestInsertQueryRefusesForeignMessages(t *testing.T) {
	bare := message.NewMessage("id", []byte(`{}`))
	good := toMessage(&Record{ID: "id", Stream: "s", Version: 1, Type: "A", SchemaVersion: 1}, "2025-03-01T03:12:00Z")
	tests := []struct {
		name  string
		topic string
		msgs  message.Messages
		want  string
	}{
		{name: "another topic", topic: "orders", msgs: message.Messages{good}, want: `only topic "events"`},
		{name: "no messages", topic: Topic, msgs: nil, want: "0 messages"},
		{name: "no herd metadata", topic: Topic, msgs: message.Messages{good, bare}, want: "publish through Store.Append"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := newSchemaAdapter(1).InsertQuery(wsql.InsertQueryParams{Topic: tt.topic, Msgs: tt.msgs})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("InsertQuery = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestInsertQueryIsOneStatement checks that n messages make one INSERT of
// n rows, sharing the precomputed SQL.
func TestInsertQueryIsOneStatement(t *testing.T) {
	for _, n := range []int{1, 2, 100, maxInsertBatch} {
		msgs := make(message.Messages, n)
		for i := range msgs {
			msgs[i] = toMessage(&Record{ID: "id", Stream: "s", Version: int64(i + 1), Type: "A", SchemaVersion: 1}, "2025-03-01T03:12:00Z")
		}
		q, err := newSchemaAdapter(1).InsertQuery(wsql.InsertQueryParams{Topic: Topic, Msgs: msgs})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Count(q.Query, "INSERT"); got != 1 {
			t.Errorf("%d messages: %d INSERTs", n, got)
		}
		if got := strings.Count(q.Query, "(?,?,?,?,?,?,"); got != n {
			t.Errorf("%d messages: %d row tuples", n, got)
		}
		if len(q.Args) != n*insertArgs || strings.HasSuffix(q.Query, ",") {
			t.Errorf("%d messages: %d args, query ends %q", n, len(q.Args), q.Query[len(q.Query)-10:])
		}
	}
}

func TestWatermillSchemaInitialisationIsRefused(t *testing.T) {
	if _, err := newSchemaAdapter(1).SchemaInitializingQueries(wsql.SchemaInitializingQueriesParams{Topic: Topic}); !errors.Is(err, errSchemaFromMigrations) {
		t.Errorf("schema adapter: %v", err)
	}
	if _, err := (offsetsAdapter{}).SchemaInitializingQueries(wsql.OffsetsSchemaInitializingQueriesParams{Topic: Topic}); !errors.Is(err, errSchemaFromMigrations) {
		t.Errorf("offsets adapter: %v", err)
	}
}
