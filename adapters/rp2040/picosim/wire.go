package picosim

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// request renders a request as the firmware writes it: HTTP/1.1, its four
// headers, Content-Length when there is a body, and Connection: close.
func (p *Pico) request(method, path, contentType, body string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s HTTP/1.1\r\n", method, path)
	fmt.Fprintf(&b, "Host: %s\r\n", p.host)
	if contentType != "" {
		fmt.Fprintf(&b, "Content-Type: %s\r\n", contentType)
	}
	b.WriteString("Accept: application/json\r\n")
	fmt.Fprintf(&b, "User-Agent: %s\r\n", UserAgent)
	if body != "" {
		fmt.Fprintf(&b, "Content-Length: %s\r\n", strconv.Itoa(len(body)))
	}
	b.WriteString("Connection: close\r\n\r\n")
	b.WriteString(body)
	return []byte(b.String())
}

// send writes one request on a fresh connection, reads the answer, syncs
// the board's clock from its Date header and keeps the exchange.
func (p *Pico) send(method, path, contentType, body string) Exchange {
	x := Exchange{Request: p.request(method, path, contentType, body)}
	x.Status, x.Body, x.Err = p.roundTrip(x.Request)
	if !p.cfg.NoHistory {
		p.mu.Lock()
		p.history = append(p.history, x)
		p.mu.Unlock()
	}
	return x
}

func (p *Pico) roundTrip(raw []byte) (int, []byte, error) {
	d := net.Dialer{Timeout: p.cfg.Timeout}
	if p.cfg.SourceIP != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(p.cfg.SourceIP)}
	}
	conn, err := d.Dial("tcp", p.host)
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = conn.Close() }() // one request per connection; its answer is already read or failed
	// A deadline on the wall clock: how long the network may take is not
	// the board's time.
	if err := conn.SetDeadline(time.Now().Add(p.cfg.Timeout)); err != nil {
		return 0, nil, err
	}
	if _, err := conn.Write(raw); err != nil {
		return 0, nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, nil, err
	}
	if t, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		p.mu.Lock()
		p.synced, p.wall, p.mono = true, t, p.cfg.Clock.Now()
		p.mu.Unlock()
	}
	return resp.StatusCode, data, nil
}
