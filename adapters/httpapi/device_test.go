package httpapi

import (
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

// deviceListener serves api's device handler on 127.0.0.2, so that
// clients can come from other loopback addresses.
func deviceListener(t testing.TB, api *testAPI, cfg DeviceConfig) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.2:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(api.DeviceHandler(cfg))
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.URL
}

// from is a client whose connections come from the loopback address ip.
func from(t testing.TB, ip string) *http.Client {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	c := &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
	t.Cleanup(c.CloseIdleConnections)
	return c
}

func TestDeviceListener(t *testing.T) {
	api := newTestAPI(t, nil)
	main := api.serve(t).URL
	dev := deviceListener(t, api, DeviceConfig{
		Allow:          []string{"pico-*"},
		SourceNetworks: []netip.Prefix{netip.MustParsePrefix("127.0.0.3/32"), netip.MustParsePrefix("127.0.0.4/32")},
	})
	mustSend(t, nil, main, 201, req{method: "POST", path: cmPath, body: `{"metadata":{"name":"pico-config","annotations":{"herd.dev/readable-by-nodes":"pico-*"}},"data":{"interval":"10"}}`})
	mustSend(t, nil, main, 201, req{method: "POST", path: cmPath, body: `{"metadata":{"name":"private"},"data":{"k":"v"}}`})
	pico, other, outside := from(t, "127.0.0.3"), from(t, "127.0.0.4"), from(t, "127.0.0.5")

	steps := []struct {
		name   string
		client *http.Client
		rq     req
		code   int
	}{
		{"no configuration before the device registered", pico, req{method: "GET", path: cmPath + "/pico-config"}, 403},
		{"a Pico registers", pico, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-01")}, 201},
		{"registering again is a conflict, as the firmware expects", pico, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-01")}, 409},
		{"then it reports its status", pico, req{method: "PATCH", path: "/api/v1/nodes/pico-01/status", contentType: strategicPatch, body: readyPatch}, 200},
		{"and reads the configuration granted to it", pico, req{method: "GET", path: cmPath + "/pico-config"}, 200},
		{"but not what is not granted", pico, req{method: "GET", path: cmPath + "/private"}, 403},
		{"nor a list", pico, req{method: "GET", path: cmPath}, 403},
		{"nor the nodes", pico, req{method: "GET", path: "/api/v1/nodes"}, 403},
		{"nor anything else", pico, req{method: "DELETE", path: "/api/v1/nodes/pico-01"}, 403},
		{"a name outside the allow-list", pico, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("web-01")}, 403},
		{"a known name from another address", other, req{method: "PATCH", path: "/api/v1/nodes/pico-01/status", contentType: strategicPatch, body: readyPatch}, 403},
		{"a known name registered from another address", other, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-01")}, 403},
		{"another address reads nothing", other, req{method: "GET", path: cmPath + "/pico-config"}, 403},
		{"an address outside the source networks", outside, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-09")}, 403},
		{"the other address registers a name of its own", other, req{method: "POST", path: "/api/v1/nodes", body: nodeJSON("pico-02")}, 201},
	}
	for _, s := range steps {
		before := api.head(t)
		a := send(t, s.client, dev, s.rq)
		if a.code != s.code {
			t.Fatalf("%s: %d %s, want %d", s.name, a.code, a.body, s.code)
		}
		if s.code == 403 {
			if reason, _ := a.status(t); reason != "Forbidden" {
				t.Errorf("%s: reason %s", s.name, reason)
			}
			if api.head(t) != before {
				t.Errorf("%s: a refused request moved the log from %d to %d", s.name, before, api.head(t))
			}
		}
	}

	// An admin releases pico-01; the next address to speak for it has it.
	mustSend(t, nil, main, 200, req{method: "DELETE", path: "/apis/herd.dev/v1/devicebindings/pico-01"})
	mustSend(t, nil, main, 404, req{method: "DELETE", path: "/apis/herd.dev/v1/devicebindings/pico-01"})
	mustSend(t, other, dev, 200, req{method: "PATCH", path: "/api/v1/nodes/pico-01/status", contentType: strategicPatch, body: readyPatch})
	mustSend(t, pico, dev, 403, req{method: "PATCH", path: "/api/v1/nodes/pico-01/status", contentType: strategicPatch, body: readyPatch})

	recs, err := api.store.ReadStream(t.Context(), api.store.DB(), "device/pico-01", 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Type+" by "+r.Metadata.Actor+" via "+r.Metadata.Source)
	}
	want := []string{
		"DeviceBound by system:device:127.0.0.3 via device-listener",
		"DeviceReleased by system:anonymous via httpapi",
		"DeviceBound by system:device:127.0.0.4 via device-listener",
	}
	if len(got) != len(want) {
		t.Fatalf("device/pico-01 holds %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %q, want %q", i, got[i], want[i])
		}
	}
	n, err := api.NodeView.Get(t.Context(), "pico-01")
	if err != nil || n.Kind != "rp2040" {
		t.Errorf("pico-01: kind %q, %v; want rp2040", n.Kind, err)
	}
}

func TestDeviceConfigValidate(t *testing.T) {
	if err := (DeviceConfig{}).Validate(); err == nil {
		t.Error("an empty policy passed")
	}
	if err := (DeviceConfig{Allow: []string{"pico-["}, SourceNetworks: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}).Validate(); err == nil {
		t.Error("a broken pattern passed")
	}
	if err := (DeviceConfig{Allow: []string{"pico-*"}, SourceNetworks: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}}).Validate(); err != nil {
		t.Error(err)
	}
}
