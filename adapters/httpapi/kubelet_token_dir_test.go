package httpapi

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestKubeletTargetTokenFilesStayInTheTokenDirectory: herd sends the
// bearer token file of a kubelet target to the target's URL, both named
// by whoever calls the API; so herd reads such a file only inside
// --kubelet-token-dir, symbolic links followed, and without the setting
// none at all. A refusal is 422 naming spec.bearerTokenFile, and appends
// nothing.
func TestKubeletTargetTokenFilesStayInTheTokenDirectory(t *testing.T) {
	root := t.TempDir()
	tokens, elsewhere := filepath.Join(root, "tokens"), filepath.Join(root, "elsewhere")
	for _, d := range []string{tokens, elsewhere} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, body string) string {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	inside := write(filepath.Join(tokens, "kubelet"), "s3cret\n")
	secret := write(filepath.Join(elsewhere, "sa-token"), "service-account-token\n")
	escape := filepath.Join(tokens, "escape")
	if err := os.Symlink(secret, escape); err != nil {
		t.Fatal(err)
	}
	dirEscape := filepath.Join(tokens, "up")
	if err := os.Symlink(elsewhere, dirEscape); err != nil {
		t.Fatal(err)
	}
	linkInside := filepath.Join(tokens, "current")
	if err := os.Symlink(inside, linkInside); err != nil {
		t.Fatal(err)
	}
	body := func(file string) string {
		return `{"spec":{"url":"http://127.0.0.1:10255","bearerTokenFile":"` + file + `"}}`
	}

	tests := []struct {
		name, dir, file string
		code            int
		says            string
	}{
		{"no --kubelet-token-dir: no token file at all", "", inside, 422, "--kubelet-token-dir, which is not set"},
		{"a file outside the directory", tokens, secret, 422, "is not inside --kubelet-token-dir"},
		{"a path that climbs out with ..", tokens, filepath.Join(tokens, "..", "elsewhere", "sa-token"), 422, "is not inside --kubelet-token-dir"},
		{"a symbolic link inside that leads outside", tokens, escape, 422, "once symbolic links are followed"},
		{"through a linked directory", tokens, filepath.Join(dirEscape, "sa-token"), 422, "once symbolic links are followed"},
		{"a file outside that does not exist says the same", tokens, "/nonexistent/token", 422, "is not inside --kubelet-token-dir"},
		{"a file inside", tokens, inside, 201, ""},
		{"a symbolic link that stays inside", tokens, linkInside, 201, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, _, store := targetAPI(t, tt.dir)
			code, answer := call(t, http.MethodPut, srv.URL+"/apis/herd.dev/v1/kubelettargets/worker-a", body(tt.file))
			if code != tt.code {
				t.Fatalf("%d %s, want %d", code, answer, tt.code)
			}
			head, _ := store.Head(t.Context(), store.DB())
			if tt.code != 422 {
				if head != 1 {
					t.Errorf("log head %d, want the target recorded", head)
				}
				return
			}
			var st metav1.Status
			if err := json.Unmarshal(answer, &st); err != nil {
				t.Fatal(err)
			}
			if len(st.Details.Causes) != 1 || st.Details.Causes[0].Field != "spec.bearerTokenFile" || !strings.Contains(st.Message, tt.says) {
				t.Errorf("%s, want spec.bearerTokenFile named, saying %q", answer, tt.says)
			}
			if strings.Contains(string(answer), "service-account-token") {
				t.Errorf("the answer holds the file's content: %s", answer)
			}
			if head != 0 {
				t.Errorf("a refused target appended %d events", head)
			}
		})
	}
}
