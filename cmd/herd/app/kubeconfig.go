package app

import (
	"fmt"
	"net"
	"os"
	"path/filepath"

	"go.uber.org/fx"
	"go.uber.org/zap"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"herd/adapters/httpapi"
)

// KubeconfigName is the kubeconfig herd serve writes into its data
// directory unless --write-kubeconfig says otherwise.
const KubeconfigName = "kubeconfig.yaml"

// KubeconfigFile is where serve writes its kubeconfig: the configured
// path, else KubeconfigName in the data directory; "" for none ("-").
func (c Config) KubeconfigFile() string {
	switch c.KubeconfigPath {
	case "-":
		return ""
	case "":
		return filepath.Join(c.DataDir, KubeconfigName)
	}
	return c.KubeconfigPath
}

// Kubeconfig is a kubeconfig for the herd at server: one cluster, one
// user, one context, all named "herd". With a token file, the user is an
// administrator's token from it (the first by name), so that kubectl may
// do what the operator may; without one, herd needs no credentials.
// caFile, when set, is the CA that signs herd's serving certificate.
func Kubeconfig(server, caFile, tokenFile string) (*clientcmdapi.Config, error) {
	cfg := clientcmdapi.NewConfig()
	cluster := clientcmdapi.NewCluster()
	cluster.Server = server
	if caFile != "" {
		// kubectl reads a relative path from the kubeconfig's directory.
		abs, err := filepath.Abs(caFile)
		if err != nil {
			return nil, err
		}
		cluster.CertificateAuthority = abs
	}
	auth := clientcmdapi.NewAuthInfo()
	if tokenFile != "" {
		tf, err := httpapi.LoadTokenFile(tokenFile)
		if err != nil {
			return nil, err
		}
		token, _, ok := tf.Admin()
		if !ok {
			return nil, fmt.Errorf("--token-auth-file %s: no user in group %s, whose token a kubeconfig could carry", tokenFile, httpapi.GroupAdmins)
		}
		auth.Token = token
	}
	kctx := clientcmdapi.NewContext()
	kctx.Cluster, kctx.AuthInfo = "herd", "herd"
	cfg.Clusters["herd"], cfg.AuthInfos["herd"], cfg.Contexts["herd"] = cluster, auth, kctx
	cfg.CurrentContext = "herd"
	return cfg, nil
}

// writeKubeconfig writes the kubeconfig of the herd h serves to path,
// mode 0600 (it may hold an administrator's token), once h listens: the
// server is the address herd really took, as k3s writes
// /etc/rancher/k3s/k3s.yaml.
func writeKubeconfig(path string, cfg Config, h *HTTPServer) error {
	kc, err := Kubeconfig(ServerURL(h.Addr(), h.tls), cfg.Security.TLSCertFile, cfg.Security.TokenAuthFile)
	if err != nil {
		return fmt.Errorf("--write-kubeconfig %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o750); err != nil {
		return fmt.Errorf("--write-kubeconfig %s: %w", path, err)
	}
	// clientcmd writes 0600 for a new file; an old one may be wider.
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		return fmt.Errorf("--write-kubeconfig %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("--write-kubeconfig %s: %w", path, err)
	}
	return nil
}

// KubeconfigOption writes serve's kubeconfig once the API listens.
func KubeconfigOption(cfg Config) fx.Option {
	path := cfg.KubeconfigFile()
	if path == "" {
		return fx.Options()
	}
	return fx.Invoke(func(lc fx.Lifecycle, h *HTTPServer, log *zap.Logger) {
		lc.Append(fx.StartHook(func() error {
			if err := writeKubeconfig(path, cfg, h); err != nil {
				return err
			}
			log.Info("kubeconfig written: KUBECONFIG="+path+" kubectl get nodes", zap.String("kubeconfig", path))
			return nil
		}))
	})
}

// ServerURL is the URL a client on this host reaches a herd listening on
// addr at: a wildcard address (0.0.0.0, ::, or no host) becomes loopback,
// as k3s's kubeconfig says 127.0.0.1.
func ServerURL(addr string, tls bool) string {
	scheme := "http://"
	if tls {
		scheme = "https://"
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return scheme + addr
	}
	if ip := net.ParseIP(host); host == "" || (ip != nil && ip.IsUnspecified()) {
		host = "127.0.0.1"
	}
	return scheme + net.JoinHostPort(host, port)
}
