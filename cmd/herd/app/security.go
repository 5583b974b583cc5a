package app

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"strings"
	"time"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/utils/clock"

	"herd/adapters/httpapi"
)

// SecurityConfig says who may talk to herd and how.
type SecurityConfig struct {
	// TokenAuthFile lists the bearer tokens herd accepts, in the format
	// of kube-apiserver's --token-auth-file. Without one, every request
	// acts as system:anonymous with every right.
	TokenAuthFile string
	// InsecureAllowAnonymous lets herd without a token file listen on an
	// address other than loopback. Anyone who can reach it may then
	// change anything.
	InsecureAllowAnonymous bool
	// InsecureAllowHTTPTokens lets herd with a token file but without TLS
	// listen on an address other than loopback. The tokens then cross the
	// network in the clear, and kubectl sends none over plain HTTP.
	InsecureAllowHTTPTokens bool
	// TLSCertFile and TLSPrivateKeyFile make the API listener serve HTTPS.
	TLSCertFile       string
	TLSPrivateKeyFile string
	// DeviceListen is the address of the plain-HTTP device listener for
	// boards that cannot authenticate, such as the Pico; empty (the
	// default) runs none.
	DeviceListen string
	// DeviceAllow are the node-name patterns devices may register.
	DeviceAllow []string
	// DeviceSourceNetworks are the CIDRs devices may connect from.
	DeviceSourceNetworks []string
	// DeviceRate is how many requests a second one source address may
	// send to the device listener (--device-rate); 0 is
	// httpapi.DefaultDeviceRate.
	DeviceRate float64
	// DeviceBurst is how many it may send at once (--device-burst); 0 is
	// httpapi.DefaultDeviceBurst.
	DeviceBurst int
	// MaxWatchesPerUser bounds the watches one user holds open at once
	// (past it: 429 with Retry-After); 0 for no bound.
	MaxWatchesPerUser int
}

// maxWatchesPerUser is MaxWatchesPerUser as the API takes it, where no
// bound is negative.
func (c SecurityConfig) maxWatchesPerUser() int {
	if c.MaxWatchesPerUser == 0 {
		return -1
	}
	return c.MaxWatchesPerUser
}

// anonymousHosts are the names, besides localhost and loopback
// addresses, that a herd without a token file answers: the host it
// listens on, when it names one.
func anonymousHosts(cfg Config) []string {
	host, _, err := net.SplitHostPort(cfg.Listen)
	if err != nil || host == "" {
		return nil
	}
	if addr, err := netip.ParseAddr(host); err == nil && addr.IsUnspecified() {
		return nil
	}
	return []string{strings.ToLower(host)}
}

// anonymousIPHosts says whether a herd without a token file answers any
// IP address as Host: when --insecure-allow-anonymous listens on every
// interface, clients reach it under any of the machine's addresses (an
// address cannot be rebound; only names are refused).
func anonymousIPHosts(cfg Config) bool {
	host, _, err := net.SplitHostPort(cfg.Listen)
	if err != nil || !cfg.Security.InsecureAllowAnonymous {
		return false
	}
	addr, err := netip.ParseAddr(host)
	return host == "" || err == nil && addr.IsUnspecified()
}

// TLS reports whether the API listener serves HTTPS.
func (c SecurityConfig) TLS() bool { return c.TLSCertFile != "" }

// validate names every wrong setting; listen is the API address, demo the
// number of simulated nodes (which send no tokens).
func (c SecurityConfig) validate(listen string, demo int) error {
	var errs []error
	if demo > 0 && c.TokenAuthFile != "" {
		errs = append(errs, errors.New("--demo runs simulated nodes without tokens: it cannot go with --token-auth-file"))
	}
	if c.TokenAuthFile == "" && !c.InsecureAllowAnonymous && !isLoopback(listen) {
		errs = append(errs, fmt.Errorf("--listen %s is not a loopback address, and without --token-auth-file anyone who reaches it could change anything: "+
			"give --token-auth-file, or --insecure-allow-anonymous if you mean it", listen))
	}
	if c.TokenAuthFile != "" && !c.TLS() && !c.InsecureAllowHTTPTokens && !isLoopback(listen) {
		errs = append(errs, fmt.Errorf("--listen %s is not a loopback address, and --token-auth-file without --tls-cert-file sends the tokens over plain HTTP, "+
			"in the clear (and kubectl sends none over it): give --tls-cert-file and --tls-private-key-file, or --insecure-allow-http-tokens if you mean it", listen))
	}
	if c.TokenAuthFile != "" {
		if _, err := os.Stat(c.TokenAuthFile); err != nil {
			errs = append(errs, fmt.Errorf("--token-auth-file: %w", err))
		}
	}
	if (c.TLSCertFile == "") != (c.TLSPrivateKeyFile == "") {
		errs = append(errs, errors.New("--tls-cert-file and --tls-private-key-file go together: give both or neither"))
	}
	if c.MaxWatchesPerUser < 0 {
		errs = append(errs, fmt.Errorf("--max-watches-per-user %d: want a number of watches, or 0 for no bound", c.MaxWatchesPerUser))
	}
	if c.DeviceListen == "" {
		if len(c.DeviceAllow) > 0 || len(c.DeviceSourceNetworks) > 0 {
			errs = append(errs, errors.New("--device-allow and --device-source-networks need --device-listen"))
		}
		return errors.Join(errs...)
	}
	if _, _, err := net.SplitHostPort(c.DeviceListen); err != nil {
		errs = append(errs, fmt.Errorf("--device-listen %q: want host:port: %w", c.DeviceListen, err))
	}
	if _, err := c.devicePolicy(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// devicePolicy is the device listener's policy from the flags.
func (c SecurityConfig) devicePolicy() (httpapi.DeviceConfig, error) {
	dc := httpapi.DeviceConfig{Allow: c.DeviceAllow, Rate: c.DeviceRate, Burst: c.DeviceBurst}
	var errs []error
	for _, n := range c.DeviceSourceNetworks {
		p, err := netip.ParsePrefix(strings.TrimSpace(n))
		if err != nil {
			errs = append(errs, fmt.Errorf("--device-source-networks %q: want a CIDR such as 192.168.4.0/24", n))
			continue
		}
		dc.SourceNetworks = append(dc.SourceNetworks, p.Masked())
	}
	errs = append(errs, dc.Validate())
	return dc, errors.Join(errs...)
}

// isLoopback reports whether a host:port listens on loopback only.
func isLoopback(listen string) bool {
	host, _, err := net.SplitHostPort(listen)
	if err != nil {
		return false
	}
	if host == "localhost" {
		return true
	}
	addr, err := netip.ParseAddr(host)
	return err == nil && addr.IsLoopback()
}

// plainHTTPTokensWarning is said at start by a herd with tokens and no
// TLS: kubectl refuses to send a bearer token over plain HTTP and then
// only answers "You must be logged in to the server", which does not say
// why.
const plainHTTPTokensWarning = "kubectl will not authenticate over plain HTTP: it sends no bearer token to an http:// server " +
	"(\"You must be logged in to the server\"), and tokens over plain HTTP travel in the clear; " +
	"give --tls-cert-file and --tls-private-key-file (herd's own CLI and agents still send their tokens)"

// newAuthenticator reads the token file, and again whenever it changes,
// or says loudly that herd takes every request.
func newAuthenticator(lc fx.Lifecycle, cfg Config, clk clock.WithTicker, log *zap.Logger) (httpapi.Authenticator, error) {
	sc := cfg.Security
	if sc.TokenAuthFile != "" {
		tf, err := httpapi.NewReloadingTokenFile(sc.TokenAuthFile, log)
		if err != nil {
			return nil, err
		}
		watchTokenFile(lc, tf, clk)
		log.Info("the API requires bearer tokens", zap.String("token_file", sc.TokenAuthFile), zap.Int("tokens", tf.Len()),
			zap.Duration("checked_every", httpapi.TokenFileCheckInterval))
		if !sc.TLS() {
			log.Warn(plainHTTPTokensWarning, zap.String("listen", cfg.Listen), zap.Bool("loopback", isLoopback(cfg.Listen)))
		}
		return tf, nil
	}
	if isLoopback(cfg.Listen) {
		log.Warn("NO AUTHENTICATION: herd accepts every request on its API as system:anonymous with every right; "+
			"fine on loopback for one user, give --token-auth-file for anything else", zap.String("listen", cfg.Listen))
	} else {
		log.Warn("INSECURE: --insecure-allow-anonymous: herd accepts every request from anyone who reaches it, "+
			"as system:anonymous with every right", zap.String("listen", cfg.Listen))
	}
	return httpapi.AllowAnonymous{}, nil
}

// serverTLS loads the API's certificate, or returns nil without TLS.
func serverTLS(sc SecurityConfig) (*tls.Config, error) {
	if !sc.TLS() {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(sc.TLSCertFile, sc.TLSPrivateKeyFile)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert-file %s, --tls-private-key-file %s: %w", sc.TLSCertFile, sc.TLSPrivateKeyFile, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// DeviceServer is the device listener, when one runs. Its address is
// known once the app has started.
type DeviceServer struct {
	srv *http.Server
	ln  net.Listener
}

// Addr is the address the device listener listens on.
func (d *DeviceServer) Addr() string { return d.ln.Addr().String() }

// URL is the device listener's base URL.
func (d *DeviceServer) URL() string { return "http://" + d.Addr() }

// newDeviceServer runs the device listener when --device-listen is given;
// it returns nil otherwise.
func newDeviceServer(lc fx.Lifecycle, cfg Config, api *httpapi.Server, log *zap.Logger) (*DeviceServer, error) {
	sc := cfg.Security
	if sc.DeviceListen == "" {
		return nil, nil
	}
	policy, err := sc.devicePolicy()
	if err != nil {
		return nil, err
	}
	d := &DeviceServer{srv: &http.Server{
		Handler: api.DeviceHandler(policy),
		// Devices send a few hundred bytes; a slow one must not hold a
		// connection.
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		IdleTimeout:       time.Minute,
	}}
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			ln, err := net.Listen("tcp", sc.DeviceListen)
			if err != nil {
				return fmt.Errorf("--device-listen %s: %w", sc.DeviceListen, err)
			}
			d.ln = ln
			log.Warn("serving the device listener: plain HTTP without credentials, for node registration, status and granted ConfigMaps",
				zap.String("url", d.URL()), zap.Strings("allow", sc.DeviceAllow), zap.Strings("source_networks", sc.DeviceSourceNetworks))
			go func() {
				if err := d.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
					log.Error("device listener stopped", zap.Error(err))
				}
			}()
			return nil
		},
		OnStop: func(ctx context.Context) error {
			return d.srv.Shutdown(ctx)
		},
	})
	return d, nil
}
