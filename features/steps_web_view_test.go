package features

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/cucumber/godog"
)

// browserAccept is what a browser asks for when it opens an address.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"

func (w *world) registerWebViewSteps(sc *godog.ScenarioContext) {
	sc.Step(`^a browser opens "([^"]+)"$`, w.browserOpens)
	sc.Step(`^it is sent to "([^"]+)"$`, w.sentTo)
	sc.Step(`^it gets the web view's page$`, w.getsThePage)
}

// browserOpens sends a browser's GET with the scenario's token, if any,
// and keeps the answer, a redirect not followed.
func (w *world) browserOpens(path string) error {
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, w.server.URL()+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", browserAccept)
	if w.auth.actor != "" {
		req.Header.Set("Authorization", "Bearer "+w.auth.actor)
	}
	c := *w.client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	w.last = response{method: http.MethodGet, path: path, code: resp.StatusCode, body: body, header: resp.Header}
	return nil
}

func (w *world) sentTo(path string) error {
	if w.last.code != http.StatusFound || w.last.header.Get("Location") != path {
		return fmt.Errorf("want a redirect (302) to %s, got %d to %q", path, w.last.code, w.last.header.Get("Location"))
	}
	return nil
}

// getsThePage checks that the answer is the web view's page. It needs
// the bundle built (make ui, which make test runs first).
func (w *world) getsThePage() error {
	switch {
	case w.last.code == http.StatusServiceUnavailable:
		return fmt.Errorf("herd was built without its web view: run make ui first (%s)", w.last)
	case w.last.code != http.StatusOK || !strings.HasPrefix(w.last.header.Get("Content-Type"), "text/html"):
		return fmt.Errorf("want the page (200, text/html), got %s", w.last)
	case !strings.Contains(string(w.last.body), `<script src="app.js">`):
		return fmt.Errorf("the page does not load the web view's script: %s", w.last.body)
	}
	return nil
}
