package app

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"

	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/zap"
)

// reportMemoryLimit says which soft memory limit herd runs under: the Go
// runtime's, which GOMEMLIMIT in herd's environment sets (GOMEMLIMIT=1GiB:
// the collector runs more often as the heap nears it, instead of letting
// it grow to twice the live heap by GOGC). herd sets none of its own, as
// kube-apiserver sets none. It logs one line as herd starts and puts the
// limit on /metrics as herd_memory_limit_bytes (0: none).
func reportMemoryLimit(reg prometheus.Registerer, log *zap.Logger) error {
	limit := memoryLimit()
	if limit == 0 {
		log.Info("memory limit: none (GOMEMLIMIT unset): the heap may grow to twice what is live before a collection")
	} else {
		log.Info("memory limit", zap.Int64("bytes", limit), zap.String("GOMEMLIMIT", os.Getenv("GOMEMLIMIT")))
	}
	g := prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "herd_memory_limit_bytes",
		Help: "The soft memory limit herd's runtime collects to stay under, as GOMEMLIMIT set it (0: none).",
	}, func() float64 { return float64(memoryLimit()) })
	if err := reg.Register(g); err != nil {
		return fmt.Errorf("the memory limit's metric: %w", err)
	}
	return nil
}

// memoryLimit is the runtime's soft memory limit in bytes, 0 when none is
// set (the runtime's math.MaxInt64).
func memoryLimit() int64 {
	l := debug.SetMemoryLimit(-1) // reads it, changes nothing
	if l == math.MaxInt64 {
		return 0
	}
	return l
}
