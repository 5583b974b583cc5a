package webui

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
)

//go:embed all:dist
var dist embed.FS

// asset is one embedded file with what its answer needs.
type asset struct {
	body        []byte
	contentType string
	etag        string
}

// Handler serves the web view's assets under prefix ("/ui/"), where the
// API mounts it; a request for prefix without its slash is sent there. A binary built
// without them (a plain `go build` that skipped the Makefile's ui step)
// answers 503 saying so, rather than a blank page.
func Handler(prefix string) http.Handler {
	assets := map[string]asset{}
	_ = fs.WalkDir(dist, "dist", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".") {
			return err
		}
		body, err := dist.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(body)
		ct := mime.TypeByExtension(path.Ext(p))
		if ct == "" {
			ct = "application/octet-stream"
		}
		assets[strings.TrimPrefix(p, "dist/")] = asset{body: body, contentType: ct, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name, ok := strings.CutPrefix(r.URL.Path, prefix)
		if !ok {
			http.Redirect(w, r, prefix, http.StatusMovedPermanently)
			return
		}
		if name == "" {
			name = "index.html"
		}
		a, found := assets[name]
		switch {
		case !found && len(assets) == 0:
			http.Error(w, "this herd binary was built without its web view: build it with `make build` (which runs Node to bundle adapters/webui)", http.StatusServiceUnavailable)
			return
		case !found:
			http.NotFound(w, r)
			return
		}
		h := w.Header()
		// The page talks to herd alone: no script, style, image or
		// connection reaches anywhere else, and no other site may frame
		// it (its buttons drain nodes).
		h.Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		// Revalidated on every load, answered 304 while unchanged: a
		// new herd binary's assets are never mixed with an old page's.
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", a.etag)
		if match := r.Header.Get("If-None-Match"); match == a.etag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		h.Set("Content-Type", a.contentType)
		if r.Method == http.MethodHead {
			return
		}
		_, _ = w.Write(a.body)
	})
}
