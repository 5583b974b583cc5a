package features

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/cucumber/godog"
)

func (w *world) registerHerdSteps(sc *godog.ScenarioContext) {
	sc.Step(`^herd is running and the time is (\S+ \S+)$`, w.herdRunsAt)
	sc.Step(`^(\d+) (second|seconds|minute|minutes|hour|hours) pass(?:es)?$`, w.timePasses)
	sc.Step(`^the request fails with (\d+) (\w+)$`, w.requestFails)
	sc.Step(`^the error names the field "([^"]+)"$`, w.errorNamesField)
}

// herdRunsAt sets herd's clock, then checks that herd answers: the world
// started it before the first step.
func (w *world) herdRunsAt(when string) error {
	t, err := time.Parse(time.DateTime, when)
	if err != nil {
		return fmt.Errorf("want a time such as 2026-03-01 09:00:00 (UTC): %w", err)
	}
	w.epoch = t
	if err := w.setClock(t); err != nil {
		return err
	}
	r, err := w.do(http.MethodGet, "/readyz", "", nil)
	if err != nil {
		return err
	}
	if r.code != http.StatusOK {
		return fmt.Errorf("herd is not ready: %s", r)
	}
	return nil
}

// timePasses advances herd's fake clock; nothing sleeps.
func (w *world) timePasses(n int, unit string) error {
	d := map[string]time.Duration{
		"second": time.Second, "seconds": time.Second,
		"minute": time.Minute, "minutes": time.Minute,
		"hour": time.Hour, "hours": time.Hour,
	}[unit]
	return w.setClock(w.clock.Now().Add(time.Duration(n) * d))
}

// requestFails checks the last request's HTTP status and the reason of the
// Kubernetes Status herd answered with.
func (w *world) requestFails(code int, reason string) error {
	if w.last.code != code {
		return fmt.Errorf("want %d %s, got %s", code, reason, w.last)
	}
	st, err := w.status()
	if err != nil {
		return err
	}
	if string(st.Reason) != reason || st.Code != int32(code) || st.Status != "Failure" {
		return fmt.Errorf("want a Failure Status %d %s, got %d %s (%s): %s", code, reason, st.Code, st.Reason, st.Status, st.Message)
	}
	return nil
}

// errorNamesField checks that the Status's causes name the field.
func (w *world) errorNamesField(field string) error {
	st, err := w.status()
	if err != nil {
		return err
	}
	var fields []string
	if st.Details != nil {
		for _, c := range st.Details.Causes {
			fields = append(fields, c.Field)
		}
	}
	if !slices.Contains(fields, field) {
		return fmt.Errorf("the error names %s, not %q: %s", quoteAll(fields), field, st.Message)
	}
	return nil
}

func quoteAll(ss []string) string {
	if len(ss) == 0 {
		return "no field"
	}
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(s)
	}
	return out
}
