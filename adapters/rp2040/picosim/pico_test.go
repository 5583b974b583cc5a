package picosim

import (
	"bufio"
	"bytes"
	"flag"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// herdStub is a loopback server that keeps the raw bytes of every request
// and answers them in turn with the given status codes, each with a Date
// header of date.
type herdStub struct {
	ln   net.Listener
	raw  chan []byte
	date time.Time
}

func newHerdStub(t *testing.T, date time.Time, codes ...int) *herdStub {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &herdStub{ln: ln, raw: make(chan []byte, len(codes)), date: date}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for _, code := range codes {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			var buf bytes.Buffer
			req, err := http.ReadRequest(bufio.NewReader(io.TeeReader(conn, &buf)))
			if err == nil {
				_, _ = io.Copy(io.Discard, req.Body)
			}
			s.raw <- buf.Bytes()
			body := `{"kind":"Status","code":` + strconv.Itoa(code) + `}`
			_, _ = io.WriteString(conn, "HTTP/1.1 "+strconv.Itoa(code)+" "+http.StatusText(code)+"\r\n"+
				"Date: "+date.Format(http.TimeFormat)+"\r\nContent-Type: application/json\r\n"+
				"Content-Length: "+strconv.Itoa(len(body))+"\r\nConnection: close\r\n\r\n"+body)
			_ = conn.Close()
		}
	}()
	return s
}

func (s *herdStub) url() string { return "http://" + s.ln.Addr().String() }

// golden compares got with testdata/name, with the stub's address made
// stable.
func golden(t *testing.T, name string, got []byte, addr string) {
	t.Helper()
	got = bytes.ReplaceAll(got, []byte(addr), []byte("herd.test:8081"))
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs:\nwant:\n%s\ngot:\n%s", name, want, got)
	}
}

func TestBootFallsBackToPatchWithTheFirmwaresBytes(t *testing.T) {
	date := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	stub := newHerdStub(t, date, http.StatusConflict, http.StatusOK, http.StatusOK)
	clk := clocktesting.NewFakeClock(time.Unix(5, 0))
	p, err := New(Config{Name: "pico-01", Server: stub.url(), InternalIP: "192.168.4.17", Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Boot()
	if err != nil {
		t.Fatal(err)
	}
	if res != (BootResult{PostStatus: 409, PatchStatus: 200}) {
		t.Errorf("boot: %+v, want a 409 POST and a 200 PATCH", res)
	}
	addr := stub.ln.Addr().String()
	golden(t, "register.http", <-stub.raw, addr)
	golden(t, "status-after-409.http", <-stub.raw, addr)

	clk.Step(10 * time.Second)
	if code, err := p.Report(); err != nil || code != 200 {
		t.Fatalf("report: %d %v", code, err)
	}
	golden(t, "status-10s-later.http", <-stub.raw, addr)
	if h := p.History(); len(h) != 3 || h[0].Status != 409 {
		t.Errorf("history: %d exchanges", len(h))
	}
}

func TestKubeletEndpoint(t *testing.T) {
	p, err := New(Config{Name: "pico-01", Server: "http://127.0.0.1:1", KubeletListen: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	if host, _, _ := net.SplitHostPort(p.KubeletAddr()); host != "127.0.0.1" || p.InternalIP() != "127.0.0.1" {
		t.Errorf("endpoint %s, internal IP %s", p.KubeletAddr(), p.InternalIP())
	}
	get := func(path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), "GET", "http://"+p.KubeletAddr()+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	tests := []struct {
		path string
		code int
		body string
	}{{"/healthz", 200, "ok"}, {"/metrics", 200, ""}, {"/pods", 404, "404 page not found\n"}}
	for _, tt := range tests {
		if code, body := get(tt.path); code != tt.code || body != tt.body {
			t.Errorf("GET %s: %d %q, want %d %q", tt.path, code, body, tt.code, tt.body)
		}
	}
	if err := p.StopKubelet(); err != nil {
		t.Fatal(err)
	}
	if code, _ := get("/healthz"); code != 0 {
		t.Errorf("a stopped endpoint answered %d", code)
	}
	if err := p.StartKubelet(); err != nil {
		t.Fatal(err)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Errorf("a restarted endpoint answered %d", code)
	}
}

func TestNewRefusesWhatTheFirmwareCannotDo(t *testing.T) {
	for _, cfg := range []Config{
		{Name: "pico-01", Server: "https://127.0.0.1:8443"},
		{Name: "pico-01", Server: "127.0.0.1:8080"},
		{Server: "http://127.0.0.1:8080"},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) succeeded", cfg)
		}
	}
}
