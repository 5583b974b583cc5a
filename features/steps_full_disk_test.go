package features

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"herd/events/eventstest"
)

func (w *world) registerFullDiskSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the disk under the log fills up$`, w.diskFills)
	sc.Step(`^room is freed on the disk$`, w.diskFreed)
	sc.Step(`^a client creates the ConfigMap "([^"]+)" of (\d+) KiB$`, w.clientCreatesBigConfigMap)
	sc.Step(`^herd is not ready, saying "([^"]+)"$`, w.notReadySaying)
	sc.Step(`^herd is soon ready again$`, w.soonReady)
}

// diskFills makes the log's database answer every write that needs room
// as a full disk does (SQLITE_FULL), through SQLite's own page limit.
func (w *world) diskFills() error {
	free, err := eventstest.FillDisk(context.Background(), w.store)
	if err != nil {
		return err
	}
	w.freeDisk = free
	return nil
}

func (w *world) diskFreed() error {
	if w.freeDisk == nil {
		return fmt.Errorf("the disk was not full")
	}
	free := w.freeDisk
	w.freeDisk = nil
	return free()
}

// clientCreatesBigConfigMap creates a ConfigMap holding kib KiB of data:
// a write that needs new room in the log.
func (w *world) clientCreatesBigConfigMap(name string, kib int) error {
	body := fmt.Sprintf(`{"metadata":{"name":%q},"data":{"blob":%q}}`, name, strings.Repeat("x", kib<<10))
	return w.write(http.MethodPost, "/api/v1/namespaces/default/configmaps", "application/json", []byte(body))
}

func (w *world) readyz() (response, error) {
	return w.doAs("", http.MethodGet, "/readyz", "", nil)
}

func (w *world) notReadySaying(want string) error {
	r, err := w.readyz()
	if err != nil {
		return err
	}
	if r.code != http.StatusServiceUnavailable || !strings.Contains(string(r.body), want) {
		return fmt.Errorf("/readyz answered %s, want 503 saying %q", r, want)
	}
	return nil
}

// soonReady waits, in real time, for herd's own probe of the log to find
// room: it tries again after a backoff of a second or two.
func (w *world) soonReady() error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		r, err := w.readyz()
		if err != nil {
			return err
		}
		if r.code == http.StatusOK {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("/readyz still answers %s", r)
		}
		<-time.After(50 * time.Millisecond)
	}
}
