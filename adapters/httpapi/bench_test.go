package httpapi

import (
	"net/http"
	"net/netip"
	"strings"
	"testing"
)

// BenchmarkDeviceStatusReport measures one Pico status report through the
// device listener, over a kept-alive loopback connection: the source and
// name checks, the binding (read from its view), and the heartbeat's
// append with its view update.
func BenchmarkDeviceStatusReport(b *testing.B) {
	api := newTestAPI(b, nil)
	dev := deviceListener(b, api, benchDevices)
	c := from(b, "127.0.0.3")
	benchSend(b, c, dev, http.StatusCreated, "POST", "/api/v1/nodes", "application/json", nodeJSON("pico-01"))
	b.ResetTimer()
	for b.Loop() {
		benchSend(b, c, dev, http.StatusOK, "PATCH", "/api/v1/nodes/pico-01/status", strategicPatch, readyPatch)
	}
}

// BenchmarkDeviceConfigRead measures one Pico reading pico-config through
// the device listener: the names bound to its address, the grant, and the
// ConfigMap.
func BenchmarkDeviceConfigRead(b *testing.B) {
	api := newTestAPI(b, nil)
	main := api.serve(b).URL
	dev := deviceListener(b, api, benchDevices)
	c := from(b, "127.0.0.3")
	benchSend(b, http.DefaultClient, main, http.StatusCreated, "POST", cmPath, "application/json",
		`{"metadata":{"name":"pico-config","annotations":{"herd.dev/readable-by-nodes":"pico-*"}},"data":{"interval":"10"}}`)
	benchSend(b, c, dev, http.StatusCreated, "POST", "/api/v1/nodes", "application/json", nodeJSON("pico-01"))
	b.ResetTimer()
	for b.Loop() {
		benchSend(b, c, dev, http.StatusOK, "GET", cmPath+"/pico-config", "", "")
	}
}

// benchDevices is the device listener of the benchmarks: one Pico on
// 127.0.0.3, with a per-address limit far above what the loop sends, so
// that they measure a request rather than the limiter's 429 (a board
// sends one report an interval; the limiter's own test is
// TestTheDeviceListenerLimitsEachSourceAddress).
var benchDevices = DeviceConfig{
	Allow:          []string{"pico-*"},
	SourceNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.3/32")},
	Rate:           1e9,
	Burst:          1 << 30,
}

func benchSend(b *testing.B, c *http.Client, base string, want int, method, path, ct, body string) {
	req, err := http.NewRequestWithContext(b.Context(), method, base+path, strings.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	if ct != "" {
		req.Header.Set("Content-Type", ct)
	}
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var buf [4096]byte
	for {
		if _, err := resp.Body.Read(buf[:]); err != nil {
			break
		}
	}
	_ = resp.Body.Close()
	if resp.StatusCode != want {
		b.Fatalf("%s %s: %d, want %d", method, path, resp.StatusCode, want)
	}
}
