package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// client is the CLI's view of a herd server.
type client struct {
	base  string
	token string
	http  *http.Client
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
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--server %q: want a URL such as http://127.0.0.1:8080", server)
	}
	token, _ := cmd.Flags().GetString("token")
	caFile, _ := cmd.Flags().GetString("certificate-authority")
	transport, err := clientTransport(caFile)
	if err != nil {
		return nil, err
	}
	return &client{base: server, token: token, http: &http.Client{Timeout: 30 * time.Second, Transport: transport}}, nil
}

// get fetches path into v; an API error comes back as the Status message.
func (c *client) get(ctx context.Context, path string, query url.Values, v any) error {
	return c.do(ctx, http.MethodGet, path, query, "", nil, v)
}

// do sends a request with an optional JSON body of the given content type
// and decodes the answer into out (when out is not nil).
func (c *client) do(ctx context.Context, method, path string, query url.Values, contentType string, body, out any) error {
	u := c.base + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		if contentType == "" {
			contentType = "application/json"
		}
		req.Header.Set("Content-Type", contentType)
	}
	c.authorize(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach herd at %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode >= 300 {
		var st metav1.Status
		if json.Unmarshal(data, &st) == nil && st.Message != "" {
			return fmt.Errorf("%s", st.Message)
		}
		return fmt.Errorf("%s: %s", u, resp.Status)
	}
	if out == nil {
		return nil
	}
	return json.Unmarshal(data, out)
}

// printStructured writes v as json or yaml; ok is false for other formats.
func printStructured(w io.Writer, format string, v any) (bool, error) {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "    ")
		return true, enc.Encode(v)
	case "yaml":
		data, err := yaml.Marshal(v)
		if err != nil {
			return true, err
		}
		_, err = w.Write(data)
		return true, err
	case "", "wide":
		return false, nil
	}
	return true, fmt.Errorf("-o %q: want json, yaml or wide", format)
}
