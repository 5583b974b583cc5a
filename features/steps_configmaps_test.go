package features

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/cucumber/godog"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

const configMapsPath = "/api/v1/namespaces/default/configmaps"

func configMapPath(name string) string { return configMapsPath + "/" + url.PathEscape(name) }

// kubectlRun is how the operator's last kubectl command ended.
type kubectlRun struct {
	args           []string
	stdout, stderr string
	code           int
}

func (w *world) registerConfigMapSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the operator runs:$`, w.operatorRuns)
	sc.Step(`^kubectl prints "(.*)"$`, w.kubectlPrints)
	sc.Step(`^kubectl fails saying "(.*)"$`, w.kubectlFails)
	sc.Step(`^the ConfigMap "([^"]+)" holds:$`, w.configMapHolds)
	sc.Step(`^there is no ConfigMap "([^"]+)"$`, w.noConfigMap)
	sc.Step(`^a client reads the ConfigMap "([^"]+)"$`, w.clientReadsConfigMap)
	sc.Step(`^a client replaces "([^"]+)" with data "([^"]*)" based on what it read$`, w.clientReplaces)
	sc.Step(`^a client creates the ConfigMap "([^"]+)" with data "([^"]*)"$`, w.clientCreatesConfigMap)
	sc.Step(`^the log records these changes to the ConfigMap "([^"]+)":$`, w.configMapChanges)
}

// kubectl runs the machine's kubectl against herd, with a home of its own
// and, when herd requires tokens, the acting user's token.
func (w *world) kubectl(args ...string) (kubectlRun, error) {
	bin, err := exec.LookPath("kubectl")
	if err != nil {
		return kubectlRun{}, fmt.Errorf("the scenario drives the machine's kubectl, and there is none on PATH: %w", err)
	}
	home := filepath.Join(w.dir, "kubectl-home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return kubectlRun{}, err
	}
	full := []string{"--server", w.server.URL(), "--request-timeout", "10s"}
	if w.auth.actor != "" {
		full = append(full, "--token", w.auth.actor)
	}
	if w.auth.ca != "" {
		full = append(full, "--certificate-authority", w.auth.ca)
	}
	full = append(full, args...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*requestTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Env = append(os.Environ(), "HOME="+home, "KUBECONFIG="+filepath.Join(home, "config"))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	run := kubectlRun{args: args, stdout: stdout.String(), stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return run, fmt.Errorf("kubectl %s did not finish: %s", strings.Join(args, " "), run.stderr)
	case errors.As(err, &exit):
		run.code = exit.ExitCode()
	case err != nil:
		return run, err
	}
	return run, nil
}

// operatorRuns runs one kubectl command line from the spec, as a shell
// would split it (single and double quotes group words).
func (w *world) operatorRuns(doc *godog.DocString) error {
	words, err := shellWords(strings.TrimSpace(doc.Content))
	if err != nil {
		return err
	}
	if len(words) == 0 || words[0] != "kubectl" {
		return fmt.Errorf("the operator runs kubectl, not %q", doc.Content)
	}
	mark, err := w.logMark()
	if err != nil {
		return err
	}
	w.before = mark
	w.kubectlLast, err = w.kubectl(words[1:]...)
	if err != nil {
		return err
	}
	return w.settle()
}

func (w *world) kubectlPrints(want string) error {
	r := w.kubectlLast
	if r.code != 0 {
		return fmt.Errorf("kubectl %s failed (%d): %s", strings.Join(r.args, " "), r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, want) {
		return fmt.Errorf("kubectl %s printed %q, want it to say %q", strings.Join(r.args, " "), r.stdout, want)
	}
	return nil
}

func (w *world) kubectlFails(want string) error {
	r := w.kubectlLast
	if r.code == 0 {
		return fmt.Errorf("kubectl %s succeeded: %s", strings.Join(r.args, " "), r.stdout)
	}
	if !strings.Contains(r.stderr, want) {
		return fmt.Errorf("kubectl %s said %q, want it to say %q", strings.Join(r.args, " "), r.stderr, want)
	}
	return nil
}

// shellWords splits a command line: spaces separate words, quotes group.
func shellWords(s string) ([]string, error) {
	var (
		out   []string
		cur   strings.Builder
		quote rune
		word  bool
	)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, word = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if word {
				out = append(out, cur.String())
				cur.Reset()
				word = false
			}
		default:
			cur.WriteRune(r)
			word = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unbalanced quote in %q", s)
	}
	if word {
		out = append(out, cur.String())
	}
	return out, nil
}

func (w *world) configMap(name string) (corev1.ConfigMap, error) {
	var cm corev1.ConfigMap
	err := w.get(configMapPath(name), &cm)
	return cm, err
}

func (w *world) configMapHolds(name string, t *godog.Table) error {
	rows, err := pairs(t)
	if err != nil {
		return err
	}
	want := map[string]string{}
	for _, r := range rows {
		want[r[0]] = r[1]
	}
	cm, err := w.configMap(name)
	if err != nil {
		return err
	}
	if !maps.Equal(cm.Data, want) {
		return fmt.Errorf("%s holds %v, want %v", name, cm.Data, want)
	}
	return nil
}

func (w *world) noConfigMap(name string) error {
	r, err := w.do(http.MethodGet, configMapPath(name), "", nil)
	if err != nil {
		return err
	}
	if r.code != http.StatusNotFound {
		return fmt.Errorf("want 404 NotFound, got %s", r)
	}
	return nil
}

// clientReadsConfigMap remembers the ConfigMap as a client read it.
func (w *world) clientReadsConfigMap(name string) error {
	cm, err := w.configMap(name)
	if err != nil {
		return err
	}
	if w.read == nil {
		w.read = map[string]corev1.ConfigMap{}
	}
	w.read[name] = cm
	return nil
}

// clientReplaces PUTs what the client read with new data, keeping the
// resourceVersion it read: Kubernetes' optimistic concurrency.
func (w *world) clientReplaces(name, data string) error {
	cm, ok := w.read[name]
	if !ok {
		return fmt.Errorf("the client never read %s", name)
	}
	kv, err := keyValues(data)
	if err != nil {
		return err
	}
	cm.Data = kv
	body, err := json.Marshal(cm)
	if err != nil {
		return err
	}
	return w.write(http.MethodPut, configMapPath(name), "application/json", body)
}

func (w *world) clientCreatesConfigMap(name, data string) error {
	kv, err := keyValues(data)
	if err != nil {
		return err
	}
	body, err := json.Marshal(corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: kv})
	if err != nil {
		return err
	}
	return w.write(http.MethodPost, configMapsPath, "application/json", body)
}

// configMapChanges checks the ConfigMap's stream in the audit log: its
// events in order, who caused each, and what changed.
func (w *world) configMapChanges(name string, t *godog.Table) error {
	rows, err := tableRows(t, "type", "actor")
	if err != nil {
		return err
	}
	recs, err := w.logRecords(url.Values{"stream": {"configmap/default/" + name}})
	if err != nil {
		return err
	}
	if len(recs) != len(rows) {
		return fmt.Errorf("configmap/default/%s holds %d events, want %d: %s", name, len(recs), len(rows), describeRecords(recs))
	}
	for i, r := range rows {
		got := recs[i]
		if got.Type != r["type"] || got.Actor != r["actor"] {
			return fmt.Errorf("event %d is %s by %q, want %s by %q", i+1, got.Type, got.Actor, r["type"], r["actor"])
		}
		if want, ok := r["changed"]; ok {
			var p struct {
				Changed []string `json:"changed"`
			}
			if err := json.Unmarshal(got.Payload, &p); err != nil {
				return err
			}
			if g := strings.Join(p.Changed, ", "); g != want {
				return fmt.Errorf("event %d changed %q, want %q", i+1, g, want)
			}
		}
	}
	return nil
}

func describeRecords(recs []auditEvent) string {
	var out []string
	for _, r := range recs {
		out = append(out, r.Type+" by "+r.Actor)
	}
	return strings.Join(out, "; ")
}
