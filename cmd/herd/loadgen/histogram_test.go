package loadgen

import (
	"strings"
	"testing"
	"time"
)

func TestHistogramQuantilesAreWithinItsPrecision(t *testing.T) {
	var h histogram
	// 1 ms … 1000 ms, one each: the q-quantile is q·1000 ms.
	for i := 1; i <= 1000; i++ {
		h.record(time.Duration(i) * time.Millisecond)
	}
	tests := []struct {
		name string
		q    float64
		want time.Duration
	}{
		{"p50", 0.50, 500 * time.Millisecond},
		{"p99", 0.99, 990 * time.Millisecond},
		{"p100", 1, time.Second},
		{"p0.1", 0.001, time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := h.quantile(tt.q)
			if got < tt.want || float64(got) > float64(tt.want)*(1+1.0/subCount) {
				t.Errorf("quantile(%g) = %s, want %s to 1/%d above", tt.q, got, tt.want, subCount)
			}
		})
	}
	if h.max != time.Second {
		t.Errorf("max %s", h.max)
	}
}

func TestBucketsCoverEveryLatencyInOrder(t *testing.T) {
	prev := -1
	for _, us := range []uint64{0, 1, 63, 64, 65, 127, 128, 129, 1000, 1 << 20, 1<<40 - 1, 1 << 50} {
		i := bucketOf(us)
		if i < prev || i >= histBuckets {
			t.Errorf("bucketOf(%d) = %d after %d", us, i, prev)
		}
		if us < 1<<40 && upperBound(i) < us {
			t.Errorf("bucket %d of %d µs ends at %d", i, us, upperBound(i))
		}
		prev = i
	}
}

func TestConfigValidateNamesEveryWrongSetting(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Servers, cfg.Style, cfg.Nodes, cfg.Connections, cfg.FallSilent = []string{"ftp://x"}, "kubelets", 0, 0, 3
	err := cfg.Validate()
	for _, flag := range []string{"--server", "--style", "--nodes", "--connections", "--fall-silent"} {
		if err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("Validate() = %v, want it to name %s", err, flag)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("the defaults: %v", err)
	}
	pico := DefaultConfig()
	pico.Style, pico.Token = StylePico, "secret"
	if err := pico.Validate(); err == nil || !strings.Contains(err.Error(), "--device-listen") {
		t.Errorf("a pico run with a token: %v", err)
	}
}
