package main

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
)

// clientTransport trusts the CA in caFile besides nothing else, or the
// system's CAs when caFile is empty.
func clientTransport(caFile string) (http.RoundTripper, error) {
	t := http.DefaultTransport.(*http.Transport).Clone()
	if caFile == "" {
		return t, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("--certificate-authority: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("--certificate-authority %s: no PEM certificate in it", caFile)
	}
	t.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return t, nil
}
