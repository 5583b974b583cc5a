package app

import (
	"go.uber.org/fx/fxevent"
	"go.uber.org/zap"
)

// newFxLogger is fx's narration through herd's logger. fx tells every
// constructor at info level; an operator needs only its warnings. The
// errors fx meets (a constructor's, a start hook's) it also returns, and
// the command prints their root cause once, in one line: logged here as
// well, they were screens of wrapping and stack before it.
func newFxLogger(l *zap.Logger) fxevent.Logger {
	if l.Core().Enabled(zap.InfoLevel) {
		l = l.WithOptions(zap.IncreaseLevel(zap.WarnLevel))
	}
	return quietErrors{&fxevent.ZapLogger{Logger: l.Named("fx")}}
}

// quietErrors passes on every fx event but the failures fx returns anyway.
type quietErrors struct{ fxevent.Logger }

// LogEvent drops the events whose error fx.New, Start or Stop returns.
func (q quietErrors) LogEvent(e fxevent.Event) {
	switch e := e.(type) {
	case *fxevent.Provided:
		if e.Err != nil {
			return
		}
	case *fxevent.Decorated:
		if e.Err != nil {
			return
		}
	case *fxevent.Run:
		if e.Err != nil {
			return
		}
	case *fxevent.RollingBack:
		return
	case *fxevent.Invoked:
		if e.Err != nil {
			return
		}
	case *fxevent.OnStartExecuted:
		if e.Err != nil {
			return
		}
	case *fxevent.Started:
		if e.Err != nil {
			return
		}
	}
	q.Logger.LogEvent(e)
}
