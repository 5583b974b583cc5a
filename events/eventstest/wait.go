package eventstest

import (
	"testing"
	"time"

	"github.com/ThreeDotsLabs/watermill/message"

	"herd/events"
)

// WaitFor bounds every wait in the suite. Generous, because the race
// detector slows SQLite's callers down a lot; a passing run never waits
// for it.
const WaitFor = 30 * time.Second

// Eventually fails t unless cond becomes true within timeout, checking
// every few milliseconds. It never sleeps longer than it has to.
func Eventually(t testing.TB, timeout time.Duration, cond func() bool, format string, args ...any) {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-deadline.C:
			t.Fatalf("not within %s: "+format, append([]any{timeout}, args...)...)
		case <-tick.C:
		}
	}
}

// Receive takes the next message from msgs, acks it and returns its
// record. It fails t if none comes within WaitFor or msgs is closed.
func Receive(t testing.TB, msgs <-chan *message.Message) events.Record {
	t.Helper()
	deadline := time.NewTimer(WaitFor)
	defer deadline.Stop()
	select {
	case msg, ok := <-msgs:
		return ackedRecord(t, msg, ok)
	case <-deadline.C:
		t.Fatalf("no message within %s", WaitFor)
	}
	return events.Record{}
}

// ackedRecord is the record of msg, received (ok) from a subscription, once
// acked; it fails t when the subscription was closed instead.
func ackedRecord(t testing.TB, msg *message.Message, ok bool) events.Record {
	t.Helper()
	if !ok {
		t.Fatal("subscription closed while a message was expected")
	}
	r, err := events.RecordFromMessage(msg)
	if err != nil {
		t.Fatal(err)
	}
	msg.Ack()
	return r
}

// ReceiveN is Receive n times.
func ReceiveN(t testing.TB, msgs <-chan *message.Message, n int) []events.Record {
	t.Helper()
	records := make([]events.Record, n)
	for i := range records {
		records[i] = Receive(t, msgs)
	}
	return records
}

// WaitClosed waits for msgs to close, dropping (not acking) anything still
// delivered, as a consumer that is shutting down would.
func WaitClosed(t testing.TB, msgs <-chan *message.Message) {
	t.Helper()
	deadline := time.NewTimer(WaitFor)
	defer deadline.Stop()
	for {
		select {
		case _, ok := <-msgs:
			if !ok {
				return
			}
		case <-deadline.C:
			t.Fatalf("subscription not closed within %s", WaitFor)
		}
	}
}
