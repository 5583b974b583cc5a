package kubeletprobe

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"herd/domain"
)

// newClient is the probe's HTTP client: no proxy (a kubelet endpoint is
// reached directly), no redirects (an answer is the endpoint's own), and
// no kept-alive connections (a Pico serves one connection at a time).
func newClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{Proxy: nil, DisableKeepAlives: true},
		CheckRedirect: func(*http.Request, []*http.Request) error {
			return http.ErrUseLastResponse
		},
	}
}

// probe sends GET /healthz to host:port and returns the outcome as the
// command that records it, the failure named in the message.
func probe(ctx context.Context, c *http.Client, host string, port int32, timeout time.Duration) domain.RecordKubeletProbe {
	url := "http://" + net.JoinHostPort(host, strconv.Itoa(int(port))) + "/healthz"
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return domain.RecordKubeletProbe{Reason: domain.ReasonProbeFailed, Message: fmt.Sprintf("GET %s: %v", url, err)}
	}
	req.Header.Set("User-Agent", "herd-kubelet-probe")
	resp, err := c.Do(req)
	if err != nil {
		return failure(url, err, timeout)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return domain.RecordKubeletProbe{Reason: domain.ReasonHTTPStatus, Message: fmt.Sprintf("GET %s: HTTP %s", url, resp.Status)}
	}
	return domain.RecordKubeletProbe{Reachable: true, Reason: domain.ReasonKubeletHealthy, Message: fmt.Sprintf("GET %s: %s", url, resp.Status)}
}

// failure names what went wrong in words that stay the same from one
// probe to the next, so that a node failing the same way records nothing
// new.
func failure(url string, err error, timeout time.Duration) domain.RecordKubeletProbe {
	var nerr net.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return domain.RecordKubeletProbe{Reason: domain.ReasonConnectionRefused, Message: fmt.Sprintf("GET %s: connection refused", url)}
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &nerr) && nerr.Timeout():
		return domain.RecordKubeletProbe{Reason: domain.ReasonProbeTimeout, Message: fmt.Sprintf("GET %s: timeout: no answer within %s", url, timeout)}
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return domain.RecordKubeletProbe{Reason: domain.ReasonProbeFailed, Message: fmt.Sprintf("GET %s: host unreachable", url)}
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return domain.RecordKubeletProbe{Reason: domain.ReasonProbeFailed, Message: fmt.Sprintf("GET %s: connection closed without an answer", url)}
	}
	return domain.RecordKubeletProbe{Reason: domain.ReasonProbeFailed, Message: fmt.Sprintf("GET %s: %v", url, err)}
}
