package kubelet

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"herd/domain"
)

// ErrNoTokenDir is why a bearer token file added through the API is
// refused while --kubelet-token-dir is not set: without it herd reads no
// file an API client names and sends it to a URL the same client chose.
var ErrNoTokenDir = errors.New("herd reads the bearer tokens of kubelet targets added through the API only from --kubelet-token-dir, which is not set")

// ConfineTokenFile resolves path, every symbolic link evaluated, and
// returns it when it lies inside dir (resolved the same way); an error
// saying why otherwise. An empty dir allows nothing. A target added
// through the API names its bearer token file, and herd sends what it
// reads there to the target's URL: an administrator's API call must not
// turn any one-line file of herd's host (a service account's token, a
// key) into a header sent anywhere.
func ConfineTokenFile(dir, path string) (string, error) {
	if dir == "" {
		return "", ErrNoTokenDir
	}
	if !filepath.IsAbs(path) {
		return "", fmt.Errorf("must be an absolute path inside --kubelet-token-dir %s", dir)
	}
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	// As written first, so that a file outside says the same whether or
	// not it exists: the answer is no oracle of herd's host.
	if !inside(absDir, filepath.Clean(path)) {
		return "", fmt.Errorf("is not inside --kubelet-token-dir %s", dir)
	}
	root, err := filepath.EvalSymlinks(absDir)
	if err != nil {
		return "", fmt.Errorf("--kubelet-token-dir %s cannot be resolved: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", fmt.Errorf("herd cannot read it: %w", err)
	}
	if !inside(root, real) {
		return "", fmt.Errorf("is not inside --kubelet-token-dir %s once symbolic links are followed", dir)
	}
	return real, nil
}

// inside says whether path lies below dir, both clean and absolute.
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// readToken reads t's bearer token: a target from herd's own
// configuration from its file as it stands, one added through the API
// only from inside dir, checked again at every read so that a link
// swapped after the target was accepted leads nowhere.
func readToken(t domain.KubeletTarget, dir string) ([]byte, error) {
	path := t.BearerTokenFile
	if t.Source == domain.SourceAPI {
		real, err := ConfineTokenFile(dir, path)
		if err != nil {
			return nil, err
		}
		path = real
	}
	return os.ReadFile(path)
}
