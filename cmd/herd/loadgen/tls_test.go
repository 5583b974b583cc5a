package loadgen_test

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"herd/cmd/herd/loadgen"
)

// TestASelfSignedHerdWithInsecureSkipVerify: a herd behind a certificate
// nobody signed is refused, unless --insecure-skip-verify says to accept
// it. The stub answers every request as herd answers a good one.
func TestASelfSignedHerdWithInsecureSkipVerify(t *testing.T) {
	var requests atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		name := r.PathValue("name")
		if name == "" {
			name = "stub"
		}
		_, _ = io.WriteString(w, `{"kind":"Node","apiVersion":"v1","metadata":{"name":"`+name+`","resourceVersion":"1"}}`)
	}))
	// The refused handshakes are the point, not news.
	srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	srv.StartTLS()
	defer srv.Close()
	for _, style := range []string{loadgen.StyleKubelet, loadgen.StyleAgent} {
		t.Run(style, func(t *testing.T) {
			cfg := tiny(srv.URL, style)
			cfg.Duration, cfg.Encoding = 100*time.Millisecond, loadgen.EncodingJSON // what the stub answers in
			if _, err := loadgen.Run(t.Context(), cfg, io.Discard); err == nil || !strings.Contains(err.Error(), "certificate") {
				t.Errorf("without --insecure-skip-verify: %v", err)
			}
			cfg.InsecureSkipVerify = true
			r, err := loadgen.Run(t.Context(), cfg, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if r.Heartbeats.Acknowledged == 0 || r.Heartbeats.Acknowledged != r.Heartbeats.Requests {
				t.Errorf("with --insecure-skip-verify: %+v", r.Heartbeats)
			}
		})
	}
}
