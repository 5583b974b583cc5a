package app

import (
	"math"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

func TestMemoryLimitIsLoggedAndOnMetrics(t *testing.T) {
	was := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(was) })
	for _, tc := range []struct {
		limit int64
		want  string
		line  string
	}{
		{limit: math.MaxInt64, want: "0", line: "memory limit: none"},
		{limit: 1 << 30, want: "1.073741824e+09", line: "memory limit"},
	} {
		debug.SetMemoryLimit(tc.limit)
		core, logs := observer.New(zap.InfoLevel)
		reg := prometheus.NewRegistry()
		if err := reportMemoryLimit(reg, zap.New(core)); err != nil {
			t.Fatal(err)
		}
		const metric = "# HELP herd_memory_limit_bytes The soft memory limit herd's runtime collects to stay under, as GOMEMLIMIT set it (0: none).\n# TYPE herd_memory_limit_bytes gauge\nherd_memory_limit_bytes "
		if err := testutil.GatherAndCompare(reg, strings.NewReader(metric+tc.want+"\n"), "herd_memory_limit_bytes"); err != nil {
			t.Errorf("limit %d: %v", tc.limit, err)
		}
		entries := logs.All()
		if len(entries) != 1 || !strings.HasPrefix(entries[0].Message, tc.line) {
			t.Errorf("limit %d: logged %v, want one line starting %q", tc.limit, entries, tc.line)
		}
		if tc.want != "0" && entries[0].ContextMap()["bytes"] != tc.limit {
			t.Errorf("limit %d: logged %v", tc.limit, entries[0].ContextMap())
		}
	}
}
