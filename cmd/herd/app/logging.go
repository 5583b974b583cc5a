package app

import (
	"fmt"

	"github.com/ThreeDotsLabs/watermill"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// validateLogging names a wrong --log-level or --log-format.
func validateLogging(level, format string) []error {
	var errs []error
	switch level {
	case "debug", "info", "warn", "error":
	default:
		errs = append(errs, fmt.Errorf("--log-level %q: want debug, info, warn or error", level))
	}
	switch format {
	case "console", "json":
	default:
		errs = append(errs, fmt.Errorf("--log-format %q: want console or json", format))
	}
	return errs
}

// NewLogger builds the process logger from the configuration.
func NewLogger(cfg Config) (*zap.Logger, error) {
	level, err := zapcore.ParseLevel(cfg.LogLevel)
	if err != nil {
		return nil, err
	}
	zc := zap.NewProductionConfig()
	if cfg.LogFormat == "console" {
		zc = zap.NewDevelopmentConfig()
		zc.DisableStacktrace = true
	}
	zc.Level = zap.NewAtomicLevelAt(level)
	return zc.Build()
}

// watermillLogger lets watermill log through zap. watermill's per-message
// trace chatter goes to debug.
type watermillLogger struct {
	l *zap.Logger
}

// NewWatermillLogger adapts l for watermill.
func NewWatermillLogger(l *zap.Logger) watermill.LoggerAdapter {
	return watermillLogger{l: l.Named("watermill")}
}

func (w watermillLogger) Error(msg string, err error, fields watermill.LogFields) {
	w.l.Error(msg, append(zapFields(fields), zap.Error(err))...)
}

func (w watermillLogger) Info(msg string, fields watermill.LogFields) {
	w.l.Info(msg, zapFields(fields)...)
}

func (w watermillLogger) Debug(msg string, fields watermill.LogFields) {
	w.l.Debug(msg, zapFields(fields)...)
}

func (w watermillLogger) Trace(msg string, fields watermill.LogFields) {
	if ce := w.l.Check(zapcore.DebugLevel, msg); ce != nil {
		ce.Write(zapFields(fields)...)
	}
}

func (w watermillLogger) With(fields watermill.LogFields) watermill.LoggerAdapter {
	return watermillLogger{l: w.l.With(zapFields(fields)...)}
}

func zapFields(fields watermill.LogFields) []zap.Field {
	out := make([]zap.Field, 0, len(fields))
	for k, v := range fields {
		out = append(out, zap.Any(k, v))
	}
	return out
}
