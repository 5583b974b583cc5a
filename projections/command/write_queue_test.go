package command

import (
	"context"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"

	"herd/events/eventstest"
)

// TestTheWriteQueueSaysOnceWhenItFallsBehindAndOnceWhenItCatchesUp: the
// oldest waiting command's age is how far behind the write path is; past
// the threshold the queue is behind, and its watcher hears of it once,
// however many commands come and however often it is asked, and once
// when the queue has caught up.
func TestTheWriteQueueSaysOnceWhenItFallsBehindAndOnceWhenItCatchesUp(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	q := newWriteQueue(clk)
	var heard []bool
	q.SetBehind(5*time.Second, func(behind bool, _ time.Duration) { heard = append(heard, behind) })
	ctx := context.Background()

	first, err := q.enter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	clk.Step(3 * time.Second)
	second, err := q.enter(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if age, behind := q.Behind(); age != 3*time.Second || behind {
		t.Fatalf("after 3 s: %v behind %v, want 3s and not behind", age, behind)
	}
	clk.Step(3 * time.Second)
	for range 3 {
		if age, behind := q.Behind(); age != 6*time.Second || !behind {
			t.Fatalf("after 6 s: %v behind %v, want 6s and behind", age, behind)
		}
		third, err := q.enter(ctx)
		if err != nil {
			t.Fatal(err)
		}
		third()
	}
	if q.Waiting() != 2 {
		t.Fatalf("%d waiting, want 2", q.Waiting())
	}
	first() // the oldest left: the next has waited 3 s
	if age, behind := q.Behind(); age != 3*time.Second || behind {
		t.Fatalf("once the oldest committed: %v behind %v, want 3s and not behind", age, behind)
	}
	second()
	if age, _ := q.Behind(); age != 0 || q.Waiting() != 0 {
		t.Fatalf("with none waiting: %v, %d waiting", age, q.Waiting())
	}
	if len(heard) != 2 || !heard[0] || heard[1] {
		t.Fatalf("the watcher heard %v, want [true false]: once behind, once caught up", heard)
	}
}

// TestAHeldWriteQueueReleasesItsCommandsInOrder: commands held by Hold
// wait, counted, and go on one at a time in the order they came.
func TestAHeldWriteQueueReleasesItsCommandsInOrder(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC))
	q := newWriteQueue(clk)
	release := q.Hold()
	order := make(chan int, 3)
	for i := range 3 {
		go func() {
			leave, err := q.enter(context.Background())
			if err != nil {
				t.Error(err)
				return
			}
			order <- i
			leave()
		}()
		eventstest.Eventually(t, eventstest.WaitFor, func() bool { return q.Waiting() == i+1 }, "command %d to wait", i)
	}
	if len(order) != 0 {
		t.Fatal("a held command went on")
	}
	release()
	for want := range 3 {
		if got := <-order; got != want {
			t.Fatalf("command %d went on %dth", got, want)
		}
	}
}

// TestTheWriteQueueAgesOnTheMonotonicClockNotHerds: herd's clock moved
// an hour on (a test's fake clock stepped, an operator's clock set)
// while a command waits a moment is not a write path an hour behind:
// the queue's age is how long the command really waited.
func TestTheWriteQueueAgesOnTheMonotonicClockNotHerds(t *testing.T) {
	units, _ := openUnits(t, 1)
	u := units[0]
	clk := u.Clock().(*clocktesting.FakeClock)
	u.Queue().SetBehind(5*time.Second, nil)
	_, release := hold(t, u)
	defer release()
	clk.Step(time.Hour)
	if age, behind := u.Queue().Behind(); age >= time.Hour || behind {
		t.Fatalf("with herd's clock an hour on: the queue says %v behind %v; want the moment the command waited", age, behind)
	}
	// The held command still ages, on the wall clock.
	eventstest.Eventually(t, eventstest.WaitFor, func() bool { return u.Queue().Oldest() >= time.Millisecond },
		"the held command to have waited 1 ms")
}
