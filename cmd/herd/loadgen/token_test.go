package loadgen_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"herd/cmd/herd/app"
	"herd/cmd/herd/loadgen"
)

// TestAHerdThatRequiresTokens acknowledges a run with an admin's token
// and refuses one without, and the refusals are counted by status.
func TestAHerdThatRequiresTokens(t *testing.T) {
	tokens := filepath.Join(t.TempDir(), "tokens.csv")
	if err := os.WriteFile(tokens, []byte("admin-token,alice,1,herd:admins\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	server := startHerd(t, func(c *app.Config) { c.Security.TokenAuthFile = tokens })
	for _, style := range []string{loadgen.StyleKubelet, loadgen.StyleAgent} {
		t.Run(style, func(t *testing.T) {
			cfg := tiny(server, style)
			cfg.Token = "admin-token"
			r, err := loadgen.Run(t.Context(), cfg, io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if r.Heartbeats.Acknowledged == 0 || r.Heartbeats.Acknowledged != r.Heartbeats.Requests {
				t.Errorf("with a token: %+v", r.Heartbeats)
			}
			cfg.Token = ""
			r, err = loadgen.Run(t.Context(), cfg, io.Discard)
			if err == nil || r.Register.Errors["401"] != 5 {
				t.Errorf("without a token: %v, register %+v", err, r.Register)
			}
		})
	}
}
