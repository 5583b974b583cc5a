package app

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"go.uber.org/zap"
)

// demoNode is the name and kind of the demo's i-th simulated node: linux,
// illumos and rp2040 in turn.
func demoNode(i int) (name, kind string) {
	kinds := []string{"linux", "illumos", "rp2040"}
	kind = kinds[i%len(kinds)]
	return fmt.Sprintf("demo-%s-%02d", kind, i), kind
}

// deregisterDemoNodes says goodbye for each of the demo's n nodes, as
// `herd agent` does on a clean stop (DELETE .../registration), so that the
// next `herd serve --demo` finds them Stopped and counts their return as a
// clean start rather than a crash recovery. The Picos are deregistered the
// same way by the demo, which stands for whoever switches the boards off:
// the firmware itself has no goodbye. A node that never registered (404)
// is no failure; others are logged and skipped, and ctx bounds the whole.
func deregisterDemoNodes(ctx context.Context, base string, n int, log *zap.Logger) {
	c := &http.Client{Timeout: 5 * time.Second}
	for i := range n {
		if ctx.Err() != nil {
			log.Warn("demo nodes left registered: herd is stopping", zap.Int("left", n-i), zap.Error(ctx.Err()))
			return
		}
		name, _ := demoNode(i)
		req, err := http.NewRequestWithContext(ctx, http.MethodDelete, base+"/apis/herd.dev/v1/nodes/"+name+"/registration", nil)
		if err != nil {
			log.Warn("demo node could not deregister", zap.String("node", name), zap.Error(err))
			continue
		}
		req.Header.Set("User-Agent", "herd-demo")
		resp, err := c.Do(req)
		if err != nil {
			log.Warn("demo node could not deregister", zap.String("node", name), zap.Error(err))
			continue
		}
		_ = resp.Body.Close()
		if resp.StatusCode >= 300 && resp.StatusCode != http.StatusNotFound {
			log.Warn("demo node could not deregister", zap.String("node", name), zap.String("status", resp.Status))
		}
	}
}
