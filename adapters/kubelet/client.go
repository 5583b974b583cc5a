package kubelet

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"k8s.io/utils/clock"

	"herd/domain"
)

// maxBodyBytes caps what herd reads from one kubelet answer. A summary of
// a node with 110 pods and their volumes is a few hundred kilobytes; 64
// MiB is far beyond any real one while keeping a broken kubelet from
// making herd buffer without bound.
const maxBodyBytes = 64 << 20

// client talks to one kubelet.
type client struct {
	target  domain.KubeletTarget
	base    string
	http    *http.Client
	clock   clock.Clock
	timeout time.Duration
	// auth names the credentials herd presents, for messages.
	auth string
	// tokenDir is --kubelet-token-dir, the one place a target added
	// through the API may have its bearer token read from.
	tokenDir string
}

// newClient builds the HTTP client of a target: its CA bundle is read
// now, its client certificate at every handshake (so that a rotated one
// is picked up), its bearer token before every request.
func newClient(t domain.KubeletTarget, clk clock.Clock, timeout time.Duration, tokenDir string) (*client, error) {
	tr := &http.Transport{
		Proxy:       nil, // kubelets sit on the node network; an HTTP proxy would only be in the way
		DialContext: (&net.Dialer{KeepAlive: 30 * time.Second}).DialContext,
		// One poller sends one request at a time; keeping its connection
		// saves a TLS handshake on every poll.
		MaxIdleConnsPerHost: 1,
		IdleConnTimeout:     5 * time.Minute,
		ForceAttemptHTTP2:   false,
	}
	if strings.HasPrefix(t.URL, "https:") {
		cfg, err := tlsConfig(t)
		if err != nil {
			return nil, err
		}
		tr.TLSClientConfig = cfg
	}
	return &client{
		target: t, base: strings.TrimSuffix(t.URL, "/"),
		http:  &http.Client{Transport: tr},
		clock: clk, timeout: timeout, auth: credentials(t), tokenDir: tokenDir,
	}, nil
}

// tlsConfig is the target's TLS configuration. A CA bundle or key pair
// that cannot be read or parsed is a ConfigError naming the file.
func tlsConfig(t domain.KubeletTarget) (*tls.Config, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: t.InsecureSkipVerify} //nolint:gosec // an explicit switch for labs, documented as such
	ca := []byte(t.CAData)
	if t.CAFile != "" {
		data, err := os.ReadFile(t.CAFile)
		if err != nil {
			return nil, &Failure{Reason: ReasonConfigError, Message: fmt.Sprintf("cannot read the CA bundle: %v", err)}
		}
		ca = data
	}
	if len(ca) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ca) {
			return nil, &Failure{Reason: ReasonConfigError, Message: fmt.Sprintf("the CA bundle %s holds no PEM certificate", cmp.Or(t.CAFile, "(caData)"))}
		}
		cfg.RootCAs = pool
	}
	if t.ClientCertFile != "" {
		if _, err := tls.LoadX509KeyPair(t.ClientCertFile, t.ClientKeyFile); err != nil {
			return nil, &Failure{Reason: ReasonConfigError, Message: fmt.Sprintf("cannot load the client certificate %s and key %s: %v", t.ClientCertFile, t.ClientKeyFile, err)}
		}
		certFile, keyFile := t.ClientCertFile, t.ClientKeyFile
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
			pair, err := tls.LoadX509KeyPair(certFile, keyFile)
			if err != nil {
				return nil, fmt.Errorf("load client certificate %s: %w", certFile, err)
			}
			return &pair, nil
		}
	}
	return cfg, nil
}

// credentials names what herd presents to the target, for messages.
func credentials(t domain.KubeletTarget) string {
	switch {
	case t.BearerTokenFile != "" && t.ClientCertFile != "":
		return fmt.Sprintf("the bearer token in %s and the client certificate %s", t.BearerTokenFile, t.ClientCertFile)
	case t.BearerTokenFile != "":
		return fmt.Sprintf("the bearer token in %s", t.BearerTokenFile)
	case t.ClientCertFile != "":
		return fmt.Sprintf("the client certificate %s", t.ClientCertFile)
	}
	return "no credentials (set bearerTokenFile or a client certificate for the kubelet's authenticated port)"
}

// get fetches one endpoint. A 404 comes back as notFound with no failure,
// for endpoints a kubelet may not serve (/configz on the read-only port).
func (c *client) get(ctx context.Context, endpoint string) (body []byte, notFound bool, f *Failure) {
	ctx, done := c.withTimeout(ctx)
	defer done()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+endpoint, nil)
	if err != nil {
		return nil, false, &Failure{Endpoint: endpoint, Reason: ReasonConfigError, Message: err.Error()}
	}
	req.Header.Set("Accept", "application/json, text/plain;q=0.9, */*;q=0.1")
	req.Header.Set("User-Agent", "herd-kubelet-poller")
	if c.target.BearerTokenFile != "" {
		token, err := readToken(c.target, c.tokenDir)
		if err != nil {
			return nil, false, &Failure{Endpoint: endpoint, Reason: ReasonConfigError, Message: fmt.Sprintf("cannot read the bearer token: %v", err)}
		}
		req.Header.Set("Authorization", "Bearer "+strings.TrimSpace(string(token)))
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, false, transportFailure(ctx, endpoint, err, c.auth)
	}
	defer resp.Body.Close()
	body, err = io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes+1))
	switch {
	case err != nil:
		return nil, false, transportFailure(ctx, endpoint, err, c.auth)
	case len(body) > maxBodyBytes:
		return nil, false, &Failure{Endpoint: endpoint, Reason: ReasonTooLarge, Message: fmt.Sprintf("the answer is larger than %d MiB", maxBodyBytes>>20)}
	case resp.StatusCode == http.StatusNotFound && !strings.HasPrefix(endpoint, "/healthz"):
		return nil, true, nil
	case resp.StatusCode != http.StatusOK:
		return nil, false, statusFailure(endpoint, resp.StatusCode, body, c.auth)
	}
	return body, false, nil
}

// withTimeout bounds a request by the timeout on herd's clock, so that
// tests drive it with the fake clock as they drive every other wait.
func (c *client) withTimeout(ctx context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	t := c.clock.NewTimer(c.timeout)
	stop := make(chan struct{})
	go func() {
		select {
		case <-t.C():
			cancel(errRequestTimeout)
		case <-stop:
		}
	}()
	return ctx, func() {
		close(stop)
		t.Stop()
		cancel(context.Canceled)
	}
}

// close drops the client's idle connections.
func (c *client) close() { c.http.CloseIdleConnections() }

// asFailure turns an error from newClient into a Failure.
func asFailure(endpoint string, err error) *Failure {
	var f *Failure
	if errors.As(err, &f) {
		f.Endpoint = endpoint
		return f
	}
	return &Failure{Endpoint: endpoint, Reason: ReasonConfigError, Message: err.Error()}
}
