package app

import (
	"context"
	"sync"

	"go.uber.org/fx"
)

// runInBackground runs each fn on a goroutine of its own from the app's
// start to its stop. Their context ends when the app stops, and the stop
// waits for them to return. It is not fx's start context: fx cancels that
// as soon as start-up is over.
func runInBackground(lc fx.Lifecycle, fns ...func(ctx context.Context)) {
	var (
		cancel context.CancelFunc
		done   sync.WaitGroup
	)
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			var ctx context.Context
			ctx, cancel = context.WithCancel(context.Background())
			for _, fn := range fns {
				done.Go(func() { fn(ctx) })
			}
			return nil
		},
		OnStop: func(context.Context) error {
			cancel()
			done.Wait()
			return nil
		},
	})
}
