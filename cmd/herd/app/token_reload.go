package app

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"go.uber.org/fx"
	"k8s.io/utils/clock"

	"herd/adapters/httpapi"
)

// watchTokenFile reads the token file again while herd runs: when it
// changes (checked on clk) and on SIGHUP, the signal daemons take as
// "read your configuration again".
func watchTokenFile(lc fx.Lifecycle, tf *httpapi.ReloadingTokenFile, clk clock.WithTicker) {
	var (
		cancel context.CancelFunc
		hup    = make(chan os.Signal, 1)
		wg     sync.WaitGroup
	)
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			var ctx context.Context
			ctx, cancel = context.WithCancel(context.Background())
			signal.Notify(hup, syscall.SIGHUP)
			t := clk.NewTicker(httpapi.TokenFileCheckInterval)
			wg.Go(func() { tf.Run(ctx, t) })
			wg.Go(func() {
				for {
					select {
					case <-ctx.Done():
						return
					case <-hup:
						tf.Reload("SIGHUP")
					}
				}
			})
			return nil
		},
		OnStop: func(context.Context) error {
			signal.Stop(hup)
			cancel()
			wg.Wait()
			return nil
		},
	})
}
