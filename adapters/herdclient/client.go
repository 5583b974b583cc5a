package herdclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

// Config says how to reach herd.
type Config struct {
	// Server is herd's URL, such as http://127.0.0.1:8080 (--server).
	Server string
	// Token is the bearer token sent with every request (--token); empty
	// for a herd without --token-auth-file.
	Token string
	// Transport carries the requests; nil for Go's default (a test's own,
	// or one that trusts herd's CA).
	Transport http.RoundTripper
	// Timeout bounds each request (default 30 s): a herd that does not
	// answer must not stall a heartbeat for ever.
	Timeout time.Duration
	// UserAgent names the client in herd's logs (default herd-agent).
	UserAgent string
}

// Client talks to one herd. It is safe for concurrent use.
type Client struct {
	base  string
	token string
	ua    string
	http  *http.Client
	// stream carries watches: no overall timeout, since a watch lasts as
	// long as the timeoutSeconds it asks herd for.
	stream *http.Client
}

// New returns a client of cfg.Server, or an error naming what is wrong.
func New(cfg Config) (*Client, error) {
	u, err := url.Parse(cfg.Server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
		return nil, fmt.Errorf("--server %q: want a URL such as http://127.0.0.1:8080", cfg.Server)
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "herd-agent"
	}
	return &Client{
		base: u.Scheme + "://" + u.Host, token: cfg.Token, ua: cfg.UserAgent,
		http:   &http.Client{Timeout: cfg.Timeout, Transport: cfg.Transport},
		stream: &http.Client{Transport: cfg.Transport},
	}, nil
}

// Server is the URL the client talks to.
func (c *Client) Server() string { return c.base }

// StatusError is herd's answer to a request it refused: the HTTP status
// and the Kubernetes Status it sent. 404 matches domain.ErrNotFound,
// 409 domain.ErrConflict and 410 ErrExpired with errors.Is.
type StatusError struct {
	Method, Path string
	Code         int
	Reason       string
	Message      string
	// RetryAfter is how long herd asked the client to wait before it
	// tries again (its Retry-After, in seconds, on a 429 or 503); zero
	// when it did not say.
	RetryAfter time.Duration
}

func (e *StatusError) Error() string {
	return fmt.Sprintf("herd refused %s %s: %d %s: %s", e.Method, e.Path, e.Code, e.Reason, e.Message)
}

// Is lets callers branch on the domain's errors.
func (e *StatusError) Is(target error) bool {
	switch e.Code {
	case http.StatusNotFound:
		return target == domain.ErrNotFound
	case http.StatusConflict:
		return target == domain.ErrConflict
	case http.StatusGone:
		return target == ErrExpired
	case http.StatusForbidden, http.StatusUnauthorized:
		return target == domain.ErrForbidden
	}
	return false
}

// do sends method path with body (JSON) and decodes a 2xx answer into out
// when out is not nil.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body, out any) error {
	return c.Do(ctx, method, path, query, "", body, out)
}

// Do sends method path with body as JSON under contentType (a patch type,
// or application/json when empty) and decodes a 2xx answer into out when
// out is not nil. A refusal is a *StatusError.
func (c *Client) Do(ctx context.Context, method, path string, query url.Values, contentType string, body, out any) error {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := c.newRequest(ctx, method, path, query, rd)
	if err != nil {
		return err
	}
	if body != nil {
		if contentType == "" {
			contentType = "application/json"
		}
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach herd at %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("%s %s: read the answer: %w", method, path, err)
	}
	if resp.StatusCode >= 300 {
		return refusal(method, path, resp, data)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("%s %s: decode the answer: %w", method, path, err)
	}
	return nil
}

// newRequest is method path?query to herd, asking for JSON, with the
// client's User-Agent and token.
func (c *Client) newRequest(ctx context.Context, method, path string, query url.Values, body io.Reader) (*http.Request, error) {
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.ua)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req, nil
}

// refusal is herd's answer resp (a status of 300 or above), whose body
// was data, as a *StatusError: the Kubernetes Status's reason and
// message when it sent one, else the HTTP status.
func refusal(method, path string, resp *http.Response, data []byte) *StatusError {
	se := &StatusError{Method: method, Path: path, Code: resp.StatusCode, Message: resp.Status}
	if n, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); err == nil && n > 0 {
		se.RetryAfter = time.Duration(n) * time.Second
	}
	var st metav1.Status
	if json.Unmarshal(data, &st) == nil && st.Message != "" {
		se.Reason, se.Message = string(st.Reason), st.Message
	}
	return se
}

// Retryable reports whether a request may succeed if sent again: herd
// could not be reached, or answered with a server error.
func Retryable(err error) bool {
	var se *StatusError
	if errors.As(err, &se) {
		return se.Code >= 500 || se.Code == http.StatusTooManyRequests
	}
	return err != nil
}

// RetryAfter is how long herd asked the sender of err to wait before it
// tries again: the Retry-After of a 429 or 503, or zero when herd said
// nothing (or err is no refusal of herd's).
func RetryAfter(err error) time.Duration {
	var se *StatusError
	if errors.As(err, &se) {
		return se.RetryAfter
	}
	return 0
}
