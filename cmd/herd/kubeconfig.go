package main

import (
	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"

	"herd/cmd/herd/app"
)

func newKubeconfigCmd() *cobra.Command {
	var listen, server, tokenFile, caFile string
	var tls bool
	cmd := &cobra.Command{
		Use:   "kubeconfig",
		Short: "Print a kubeconfig for this herd, for kubectl and client-go",
		Long: `kubeconfig prints a kubeconfig whose one context, "herd", reaches herd serve
at --server, or else at --listen (serve's flag and HERD_LISTEN; a wildcard
address becomes 127.0.0.1). With --token-auth-file (serve's) it carries the
token of an administrator from that file (group herd:admins, the first by
name); with --tls-cert-file it speaks HTTPS and trusts that certificate.

herd serve also writes one at start (--write-kubeconfig, by default
kubeconfig.yaml in --data-dir).

  herd kubeconfig > ~/.kube/herd.yaml && KUBECONFIG=~/.kube/herd.yaml kubectl get nodes`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if server == "" {
				server = app.ServerURL(listen, tls || caFile != "")
			}
			kc, err := app.Kubeconfig(server, caFile, tokenFile)
			if err != nil {
				return reportErr(cmd, err)
			}
			out, err := clientcmd.Write(*kc)
			if err != nil {
				return reportErr(cmd, err)
			}
			_, err = cmd.OutOrStdout().Write(out)
			return reportErr(cmd, err)
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", app.DefaultConfig().Listen, "herd serve's --listen")
	f.StringVar(&server, "server", "", "herd's URL, when --listen does not say how to reach it (a load balancer, another host)")
	f.StringVar(&tokenFile, "token-auth-file", "", "herd serve's --token-auth-file: the kubeconfig carries an administrator's token from it")
	f.StringVar(&caFile, "tls-cert-file", "", "herd serve's --tls-cert-file: the kubeconfig speaks HTTPS and trusts it")
	f.BoolVar(&tls, "tls", false, "herd serves HTTPS with a certificate the system already trusts")
	return cmd
}
