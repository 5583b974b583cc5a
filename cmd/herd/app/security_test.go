package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSecurityValidate(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("t,alice,1,herd:admins\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		listen  string
		demo    int
		sc      SecurityConfig
		wantErr []string
	}{
		{name: "loopback without tokens", listen: "127.0.0.1:8080"},
		{name: "IPv6 loopback without tokens", listen: "[::1]:8080"},
		{name: "localhost without tokens", listen: "localhost:8080"},
		{name: "every address without tokens", listen: "0.0.0.0:8080", wantErr: []string{"--listen 0.0.0.0:8080 is not a loopback address", "--token-auth-file", "--insecure-allow-anonymous"}},
		{name: "an empty host without tokens", listen: ":8080", wantErr: []string{"not a loopback address"}},
		{name: "every address, insecure on purpose", listen: "0.0.0.0:8080", sc: SecurityConfig{InsecureAllowAnonymous: true}},
		{name: "every address with tokens over HTTPS", listen: "0.0.0.0:8080", sc: SecurityConfig{TokenAuthFile: tokens, TLSCertFile: "c.pem", TLSPrivateKeyFile: "k.pem"}},
		{name: "every address with tokens over plain HTTP", listen: "0.0.0.0:8080", sc: SecurityConfig{TokenAuthFile: tokens},
			wantErr: []string{"--listen 0.0.0.0:8080 is not a loopback address", "--token-auth-file", "--tls-cert-file", "--insecure-allow-http-tokens"}},
		{name: "every address with tokens over plain HTTP on purpose", listen: "0.0.0.0:8080", sc: SecurityConfig{TokenAuthFile: tokens, InsecureAllowHTTPTokens: true}},
		{name: "loopback with tokens over plain HTTP", listen: "127.0.0.1:8080", sc: SecurityConfig{TokenAuthFile: tokens}},
		{name: "a token file that is not there", listen: "127.0.0.1:8080", sc: SecurityConfig{TokenAuthFile: tokens + ".missing"}, wantErr: []string{"--token-auth-file"}},
		{name: "a certificate without its key", listen: "127.0.0.1:8080", sc: SecurityConfig{TLSCertFile: "c.pem"}, wantErr: []string{"--tls-cert-file and --tls-private-key-file go together"}},
		{name: "a device listener", listen: "127.0.0.1:8080", sc: SecurityConfig{DeviceListen: "127.0.0.2:8081", DeviceAllow: []string{"pico-*"}, DeviceSourceNetworks: []string{"127.0.0.3/32"}}},
		{name: "a device listener without policy", listen: "127.0.0.1:8080", sc: SecurityConfig{DeviceListen: "127.0.0.2:8081"}, wantErr: []string{"--device-allow", "--device-source-networks"}},
		{name: "a bad network", listen: "127.0.0.1:8080", sc: SecurityConfig{DeviceListen: "127.0.0.2:8081", DeviceAllow: []string{"pico-*"}, DeviceSourceNetworks: []string{"pico-net"}}, wantErr: []string{`--device-source-networks "pico-net"`}},
		{name: "policy without a listener", listen: "127.0.0.1:8080", sc: SecurityConfig{DeviceAllow: []string{"pico-*"}}, wantErr: []string{"need --device-listen"}},
		{name: "a demo fleet cannot send tokens", listen: "127.0.0.1:8080", demo: 3, sc: SecurityConfig{TokenAuthFile: tokens}, wantErr: []string{"--demo"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := DefaultConfig()
			cfg.Listen, cfg.Security, cfg.Demo = tt.listen, tt.sc, tt.demo
			err := cfg.Validate()
			if len(tt.wantErr) == 0 {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
