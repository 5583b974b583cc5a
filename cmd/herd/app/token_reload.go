package app

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"go.uber.org/fx"
	"k8s.io/utils/clock"

	"herd/adapters/httpapi"
)

// watchTokenFile reads the token file again while herd runs: when it
// changes (checked on clk) and on SIGHUP, the signal daemons take as
// "read your configuration again".
func watchTokenFile(lc fx.Lifecycle, tf *httpapi.ReloadingTokenFile, clk clock.WithTicker) {
	// SIGHUP is caught from here on, before the app starts: its default
	// action would end herd.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	// The ticker starts now, not on the goroutine, so that a test's clock
	// step right after start is never missed.
	t := clk.NewTicker(httpapi.TokenFileCheckInterval)
	runInBackground(lc,
		func(ctx context.Context) { tf.Run(ctx, t) },
		func(ctx context.Context) {
			defer signal.Stop(hup)
			for {
				select {
				case <-ctx.Done():
					return
				case <-hup:
					tf.Reload("SIGHUP")
				}
			}
		})
}
