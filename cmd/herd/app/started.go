package app

import (
	"sync/atomic"

	"go.uber.org/fx"
)

// started says whether `herd serve` has run every start step. The API
// listens before the last of them (the kubeconfig it writes, the demo
// fleet), so /readyz fails until they have run: whoever waits for it —
// a test, a script, a load balancer — then finds them done.
type started struct{ atomic.Bool }

func newStarted() *started { return new(started) }

// markStarted is the last start step: options after it would start after
// herd said it was ready.
func markStarted() fx.Option {
	return fx.Invoke(func(lc fx.Lifecycle, s *started) {
		lc.Append(fx.StartHook(func() { s.Store(true) }))
	})
}
