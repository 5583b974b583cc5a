package httpapi

import (
	"bytes"
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/munnerz/goautoneg"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// openAPIDoc is one document under /openapi/v3 as it is served: its JSON
// and the hash that names this version of it.
type openAPIDoc struct {
	body []byte
	// hash is the SHA-512 of body in upper-case hex, as kube-apiserver
	// computes it: the ETag, and the ?hash= of the document's URL.
	hash string
}

// openAPIDocs are the documents of every group-version in
// openAPIGroupVersions by their path ("api/v1"), and the index ("").
// Each server builds them once: they change only with herd.
func openAPIDocs(kinds []*kind) (map[string]openAPIDoc, error) {
	docs := map[string]openAPIDoc{}
	index := map[string]map[string]string{}
	for _, g := range openAPIGroupVersions(kinds) {
		doc, err := openAPIDocument(g)
		if err != nil {
			return nil, err
		}
		d, err := newOpenAPIDoc(doc)
		if err != nil {
			return nil, err
		}
		path := openAPIPath(g.gv)
		docs[path] = d
		index[path] = map[string]string{"serverRelativeURL": (&url.URL{Path: "/openapi/v3/" + path, RawQuery: url.Values{"hash": {d.hash}}.Encode()}).String()}
	}
	d, err := newOpenAPIDoc(map[string]any{"paths": index})
	if err != nil {
		return nil, err
	}
	docs[""] = d
	return docs, nil
}

// newOpenAPIDoc is v in JSON, with its hash.
func newOpenAPIDoc(v any) (openAPIDoc, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return openAPIDoc{}, fmt.Errorf("encode the OpenAPI document: %w", err)
	}
	return openAPIDoc{body: body, hash: fmt.Sprintf("%X", sha512.Sum512(body))}, nil
}

// openAPIIndex is /openapi/v3: where each group-version's document is,
// at a URL carrying its hash. kubectl reads it before it creates or
// applies an object, to learn whether the server validates fields itself
// (the fieldValidation query parameter; without it kubectl refuses unless
// told --validate=false), and to find the schemas kubectl explain prints
// and kubectl apply computes its strategic merge patches from.
func (s *Server) openAPIIndex(w http.ResponseWriter, r *http.Request) {
	s.serveOpenAPI(w, r, "")
}

// openAPIGroupVersion is one group-version's document. Asked for at the
// URL the index names, with the current hash, it may be cached for ever
// (kubectl keeps it in its cache directory); with an old hash, the answer
// is a redirect to the current URL, as kube-apiserver answers.
func (s *Server) openAPIGroupVersion(w http.ResponseWriter, r *http.Request) {
	path := r.PathValue("path")
	if path == "" {
		s.notFound(w, r)
		return
	}
	s.serveOpenAPI(w, r, path)
}

// serveOpenAPI answers with the document at path ("" for the index), in
// JSON: herd does not serve the documents' protobuf form.
func (s *Server) serveOpenAPI(w http.ResponseWriter, r *http.Request, path string) {
	docs, err := s.openAPI()
	if err != nil {
		s.writeError(w, err, "", "")
		return
	}
	doc, ok := docs[path]
	if !ok {
		s.notFound(w, r)
		return
	}
	if !acceptsJSON(r.Header.Get("Accept")) {
		s.writeStatus(w, metav1Status(http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
			fmt.Sprintf("the OpenAPI documents are served as application/json only (the Accept header asked for %q)", r.Header.Get("Accept"))))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Etag", strconv.Quote(doc.hash))
	w.Header().Set("Vary", "Accept")
	if hash := r.URL.Query().Get("hash"); path != "" && hash != "" {
		if hash != doc.hash {
			u := url.URL{Path: "/openapi/v3/" + path, RawQuery: url.Values{"hash": {doc.hash}}.Encode()}
			http.Redirect(w, r, u.String(), http.StatusMovedPermanently)
			return
		}
		// The URL names this very document: it never changes.
		w.Header().Set("Cache-Control", "public, immutable")
		w.Header().Set("Expires", s.Clock.Now().AddDate(1, 0, 0).UTC().Format(http.TimeFormat))
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(doc.body))
}

// acceptsJSON says whether an Accept header lets the answer be JSON.
func acceptsJSON(accept string) bool {
	if accept == "" {
		return true
	}
	for _, c := range goautoneg.ParseAccept(accept) {
		if (c.Type == "*" || c.Type == "application") && (c.SubType == "*" || c.SubType == "json") && c.Q > 0 {
			return true
		}
	}
	return false
}
