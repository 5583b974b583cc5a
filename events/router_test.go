package events_test

import (
	"sync"
	"testing"

	"github.com/ThreeDotsLabs/watermill/message"
	"github.com/google/go-cmp/cmp"

	"herd/events"
	"herd/events/eventstest"
)

// TestRouterConsumesThroughNewSubscriber wires NewSubscriber into a
// watermill router, as reconcilers do.
func TestRouterConsumesThroughNewSubscriber(t *testing.T) {
	s, _ := openSQLite(t)
	appended := appendN(t, s, "node/a", 5)

	router, err := message.NewRouter(message.RouterConfig{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := s.NewSubscriber("health")
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu  sync.Mutex
		got []events.Record
	)
	router.AddConsumerHandler("health", events.Topic, sub, func(msg *message.Message) error {
		r, err := events.RecordFromMessage(msg)
		if err != nil {
			return err
		}
		mu.Lock()
		got = append(got, r)
		mu.Unlock()
		return nil
	})
	done := make(chan error, 1)
	go func() { done <- router.Run(t.Context()) }()
	<-router.Running()
	received := func() []events.Record {
		mu.Lock()
		defer mu.Unlock()
		return append([]events.Record(nil), got...)
	}
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return len(received()) == len(appended) }, "router handling all %d events", len(appended))
	if err := router.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(appended, received()); diff != "" {
		t.Errorf("handled (-want +got):\n%s", diff)
	}
}

// appendN appends n events to a new stream in one transaction.
func appendN(t *testing.T, s *events.Store, stream string, n int) []events.Record {
	t.Helper()
	evs := make([]events.NewEvent, n)
	for i := range evs {
		evs[i] = events.NewEvent{Type: "A", Payload: []byte(`{}`)}
	}
	tx, err := s.DB().BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	records, err := s.Append(t.Context(), tx, stream, 0, events.Metadata{}, at, evs...)
	if err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return records
}
