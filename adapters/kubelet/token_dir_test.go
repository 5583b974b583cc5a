package kubelet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"herd/domain"
)

// TestTokensOfAPITargetsAreReadOnlyInsideTheTokenDirectory: the poller
// checks again at every read, so a link swapped after the API accepted
// the target leads nowhere; a target of herd's own configuration is read
// where it says.
func TestTokensOfAPITargetsAreReadOnlyInsideTheTokenDirectory(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "tokens")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	inside, outside := filepath.Join(dir, "kubelet"), filepath.Join(root, "secret")
	for p, body := range map[string]string{inside: "s3cret\n", outside: "other\n"} {
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	link := filepath.Join(dir, "current")
	if err := os.Symlink(inside, link); err != nil {
		t.Fatal(err)
	}
	api := domain.KubeletTarget{Name: "worker-a", BearerTokenFile: link, Source: domain.SourceAPI}
	if got, err := readToken(api, dir); err != nil || string(got) != "s3cret\n" {
		t.Fatalf("a token inside: %q, %v", got, err)
	}
	if _, err := readToken(api, ""); err == nil {
		t.Error("read an API target's token without --kubelet-token-dir")
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	if got, err := readToken(api, dir); err == nil || !strings.Contains(err.Error(), "not inside") {
		t.Errorf("after the link was swapped to a file outside: %q, %v; want a refusal", got, err)
	}
	configured := domain.KubeletTarget{Name: "worker-b", BearerTokenFile: outside, Source: domain.SourceConfig}
	if got, err := readToken(configured, dir); err != nil || string(got) != "other\n" {
		t.Errorf("a configured target's token: %q, %v", got, err)
	}
}
