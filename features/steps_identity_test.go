package features

import (
	"fmt"
	"net/http"

	"github.com/cucumber/godog"
)

func (w *world) registerIdentitySteps(sc *godog.ScenarioContext) {
	sc.Step(`^"([^"]+)" registers a Node named "([^"]+)" whose body also names "([^"]+)" in a key that differs only in case$`, w.registerCaseTwin)
	sc.Step(`^"([^"]+)" registers itself with the label "([^"]+)"$`, w.registerLabelled)
	sc.Step(`^a client reads (/\S+)$`, w.clientReads)
}

// registerCaseTwin posts a Node whose metadata holds "name" and "Name":
// apimachinery's decoder reads the first, a case-blind one the second.
func (w *world) registerCaseTwin(_, stored, claimed string) error {
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Node","metadata":{"name":%q,"Name":%q}}`, stored, claimed)
	return w.write(http.MethodPost, "/api/v1/nodes", "application/json", []byte(body))
}

// registerLabelled posts the node's own Node with one label.
func (w *world) registerLabelled(name, label string) error {
	body := fmt.Sprintf(`{"apiVersion":"v1","kind":"Node","metadata":{"name":%q,"labels":{%q:""}}}`, name, label)
	return w.write(http.MethodPost, "/api/v1/nodes", "application/json", []byte(body))
}

// clientReads GETs path as the scenario's user.
func (w *world) clientReads(path string) error {
	var err error
	w.last, err = w.doAs(w.auth.actor, http.MethodGet, path, "", nil)
	return err
}
