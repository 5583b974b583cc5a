package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	"herd/adapters/herdclient"
)

// client is the CLI's view of a herd server: herd's API client, with
// refusals shown as herd's own message.
type client struct {
	hc *herdclient.Client
}

// addServerFlag adds the flags that say how to reach herd: --server, and
// --token and --certificate-authority for a herd that requires them.
func addServerFlag(cmd *cobra.Command, server *string) {
	f := cmd.PersistentFlags()
	f.StringVar(server, "server", "http://127.0.0.1:8080", "URL of the herd API")
	f.String("token", "", "bearer token for a herd started with --token-auth-file")
	f.String("certificate-authority", "", "PEM file of the CA that signed herd's TLS certificate (default: the system's)")
}

// newClient is a client of server with the token and CA of cmd's flags.
func newClient(cmd *cobra.Command, server string) (*client, error) {
	token, _ := cmd.Flags().GetString("token")
	caFile, _ := cmd.Flags().GetString("certificate-authority")
	transport, err := clientTransport(caFile)
	if err != nil {
		return nil, err
	}
	hc, err := herdclient.New(herdclient.Config{Server: server, Token: token, Transport: transport, UserAgent: "herd-cli"})
	if err != nil {
		return nil, err
	}
	return &client{hc: hc}, nil
}

// get fetches path into v; an API error comes back as the Status message.
func (c *client) get(ctx context.Context, path string, query url.Values, v any) error {
	return c.do(ctx, http.MethodGet, path, query, "", nil, v)
}

// do sends a request with an optional JSON body of the given content type
// and decodes the answer into out (when out is not nil). A refusal is
// reported as the message of herd's Status, as kubectl reports it.
func (c *client) do(ctx context.Context, method, path string, query url.Values, contentType string, body, out any) error {
	err := c.hc.Do(ctx, method, path, query, contentType, body, out)
	var se *herdclient.StatusError
	switch {
	case !errors.As(err, &se):
		return err
	case se.Reason == "":
		return fmt.Errorf("%s %s: %s", method, path, se.Message)
	default:
		return errors.New(se.Message)
	}
}

// printStructured writes v as json or yaml; ok is false for other formats
// (the tables and names, which the command prints itself: -o's flag has
// refused any other value).
func printStructured(w io.Writer, format string, v any) (bool, error) {
	switch format {
	case outputJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "    ")
		return true, enc.Encode(v)
	case outputYAML:
		data, err := yaml.Marshal(v)
		if err != nil {
			return true, err
		}
		_, err = w.Write(data)
		return true, err
	}
	return false, nil
}
