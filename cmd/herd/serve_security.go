package main

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/spf13/pflag"

	"herd/adapters/httpapi"
	"herd/cmd/herd/app"
	"herd/domain"
)

// addSecurityFlags adds the flags of who may talk to herd, and of herd's
// probes of kubelet endpoints, to serve's flags.
func addSecurityFlags(f *pflag.FlagSet, cfg *app.Config) {
	s := &cfg.Security
	f.StringVar(&s.TokenAuthFile, "token-auth-file", s.TokenAuthFile,
		`bearer tokens, one per line as kube-apiserver's --token-auth-file: token,user,uid,"group1,group2"; roles are the groups herd:admins, herd:viewers and system:nodes (user system:node:NAME)`)
	f.BoolVar(&s.InsecureAllowAnonymous, "insecure-allow-anonymous", s.InsecureAllowAnonymous,
		"without --token-auth-file, listen on a non-loopback --listen anyway: anyone who reaches herd may change anything")
	f.BoolVar(&s.InsecureAllowHTTPTokens, "insecure-allow-http-tokens", s.InsecureAllowHTTPTokens,
		"with --token-auth-file but without --tls-cert-file, listen on a non-loopback --listen anyway: tokens cross the network in the clear, and kubectl sends none")
	f.StringVar(&s.TLSCertFile, "tls-cert-file", s.TLSCertFile, "serve the API over HTTPS with this certificate (PEM)")
	f.StringVar(&s.TLSPrivateKeyFile, "tls-private-key-file", s.TLSPrivateKeyFile, "the private key of --tls-cert-file (PEM)")
	f.StringVar(&s.DeviceListen, "device-listen", s.DeviceListen,
		"also serve a plain-HTTP listener without credentials for devices such as the Pico (host:port); off when empty")
	f.StringSliceVar(&s.DeviceAllow, "device-allow", s.DeviceAllow, "node names devices may register on --device-listen, as glob patterns (pico-*)")
	f.StringSliceVar(&s.DeviceSourceNetworks, "device-source-networks", s.DeviceSourceNetworks, "networks devices may connect to --device-listen from (CIDRs)")
	f.IntVar(&s.MaxWatchesPerUser, "max-watches-per-user", s.MaxWatchesPerUser,
		"watches one user may hold open at once; past it a watch is refused with 429 and Retry-After (each holds a connection, and a user without a bound can run herd out of file descriptors); 0 for no bound")
	if s.DeviceRate == 0 {
		s.DeviceRate = httpapi.DefaultDeviceRate
	}
	if s.DeviceBurst == 0 {
		s.DeviceBurst = httpapi.DefaultDeviceBurst
	}
	f.Float64Var(&s.DeviceRate, "device-rate", s.DeviceRate, "requests a second one source address may send to --device-listen, on average; past it 429 with Retry-After")
	f.IntVar(&s.DeviceBurst, "device-burst", s.DeviceBurst, "requests one source address may send to --device-listen at once")
	f.StringVar(&cfg.Kubelet.TokenDir, "kubelet-token-dir", cfg.Kubelet.TokenDir,
		"the directory the bearerTokenFile of a kubelet target added through the API must lie in (symbolic links followed); unset, such a target may name none")

	p := &cfg.KubeletProbe
	f.Var((*kindsValue)(&p.Kinds), "kubelet-probe-kinds", `node kinds whose kubelet endpoint herd probes (GET /healthz), comma-separated; "" for none`)
	f.DurationVar(&p.Interval, "kubelet-probe-interval", p.Interval, "time between two probes of one node's kubelet endpoint")
	f.DurationVar(&p.Timeout, "kubelet-probe-timeout", p.Timeout, "how long one probe of a kubelet endpoint may take")
	f.Var((*prefixesValue)(&p.Networks), "kubelet-probe-networks",
		"networks (CIDRs, comma-separated) herd may probe kubelet endpoints in; a node whose InternalIP is in none is not probed (default none: nodes, Picos among them, choose the address they report)")
}

// prefixesValue is a comma-separated list of CIDRs as a flag.
type prefixesValue []netip.Prefix

func (v *prefixesValue) String() string {
	out := make([]string, len(*v))
	for i, p := range *v {
		out[i] = p.String()
	}
	return strings.Join(out, ",")
}

func (v *prefixesValue) Set(s string) error {
	*v = nil
	for c := range strings.SplitSeq(s, ",") {
		if c = strings.TrimSpace(c); c == "" {
			continue
		}
		p, err := netip.ParsePrefix(c)
		if err != nil {
			return fmt.Errorf("%q: want a CIDR such as 192.168.4.0/24", c)
		}
		*v = append(*v, p.Masked())
	}
	return nil
}

func (v *prefixesValue) Type() string { return "cidrs" }

// kindsValue is a comma-separated list of node kinds as a flag. Checking
// the kinds is the configuration's job, which names every wrong one.
type kindsValue []domain.NodeKind

func (v *kindsValue) String() string {
	out := make([]string, len(*v))
	for i, k := range *v {
		out[i] = string(k)
	}
	return strings.Join(out, ",")
}

func (v *kindsValue) Set(s string) error {
	*v = nil
	for k := range strings.SplitSeq(s, ",") {
		if k = strings.TrimSpace(k); k != "" {
			*v = append(*v, domain.NodeKind(k))
		}
	}
	return nil
}

func (v *kindsValue) Type() string { return "kinds" }
