package features

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"

	"herd/cmd/herd/whatif"
)

// The what-if asked through herd's API (POST /apis/herd.dev/v1/whatifs),
// as the web view and herd what-if --server ask it.
func (w *world) registerWhatIfAPISteps(sc *godog.ScenarioContext) {
	sc.Step(`^an operator asks herd's API what if "([^"]+)" had been drained at (\S+), since (\S+)$`, w.askWhatIfDrained)
	sc.Step(`^an operator asking herd's API what if "([^"]+)" had been drained at (\S+), since (\S+)(?: until (\S+))?, is refused, naming "([^"]+)" and saying "([^"]+)"$`, w.whatIfAPIDrainRefused)
	sc.Step(`^the answer says the pods of "([^"]+)" would have been evicted from "([^"]+)" by the drain, with the drain among their causes$`, w.whatIfAnswerDrained)
	sc.Step(`^an operator asks herd's API what if the node of pod "([^"]+)" had been drained at (\S+), since (\S+)$`, func(ctx context.Context, pod, at, since string) error {
		p, err := w.pod(pod)
		if err != nil {
			return err
		}
		if p.Spec.NodeName == "" {
			return fmt.Errorf("pod %s is on no node", pod)
		}
		return w.askWhatIfDrained(ctx, p.Spec.NodeName, at, since)
	})
	sc.Step(`^the answer says pod "([^"]+)" would have been evicted by the drain, its causes starting from the drain's eviction$`, w.whatIfAnswerPodDrained)
	sc.Step(`^an operator asking herd's API what if PodDisruptionBudget "([^"]+)" had been maxUnavailable (\d+) since (\S+) is told the pods of "([^"]+)" herd evicted from "([^"]+)" would have stayed$`, w.whatIfAPIBudgetHolds)
	sc.Step(`^an operator asking herd's API what if PodDisruptionBudget "([^"]+)" had been maxUnavailable (\d+) since (\S+) is refused, naming "([^"]+)"(?: and saying "([^"]+)")?$`, w.whatIfAPIBudgetRefused)
	sc.Step(`^an operator asking herd's API a what-if since (\S+) with an? (node-monitor-grace-period|unhealthy-fleet-threshold) of (\S+) is refused, naming "([^"]+)"$`, w.whatIfAPIRefused)
	sc.Step(`^an operator asking herd's API what if the unhealthy-fleet-threshold had been (\S+) since (\S+) is told the pods of "([^"]+)" herd left on "([^"]+)" would have been evicted$`, w.whatIfAPIThresholdEvicts)
}

// askWhatIfAPI posts spec to herd's API as the admin and returns the
// answer's code and body. A what-if runs for seconds: longer than the
// world's client waits.
func (w *world) askWhatIfAPI(ctx context.Context, spec map[string]any) (int, []byte, error) {
	body, err := json.Marshal(map[string]any{"apiVersion": "herd.dev/v1", "kind": "WhatIf", "spec": spec})
	if err != nil {
		return 0, nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.server.URL()+"/apis/herd.dev/v1/whatifs", bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if w.auth.admin != "" {
		req.Header.Set("Authorization", "Bearer "+w.auth.admin)
	}
	resp, err := (&http.Client{Timeout: 3 * time.Minute}).Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

// askWhatIfDrain asks herd's API what if node had been drained at a
// time of day, since another, and gives back its answer.
// A window's end, until, is optional: empty is the log's newest event.
func (w *world) askWhatIfDrain(ctx context.Context, node, at, since string, until ...string) (int, []byte, error) {
	times := map[string]string{"since": since, "at": at}
	if len(until) > 0 {
		times["until"] = until[0]
	}
	for k, v := range times {
		t, err := w.at(v)
		if err != nil {
			return 0, nil, err
		}
		times[k] = t.UTC().Format(time.RFC3339)
	}
	spec := map[string]any{"since": times["since"], "drains": []map[string]string{{"node": node, "at": times["at"]}}}
	if u, ok := times["until"]; ok {
		spec["until"] = u
	}
	return w.askWhatIfAPI(ctx, spec)
}

// whatIfAPIDrainRefused: a drain the what-if cannot add (in the future,
// or after the window's end) is refused with 400 naming it, its reason
// in words.
func (w *world) whatIfAPIDrainRefused(ctx context.Context, node, at, since, until, field, words string) error {
	var ends []string
	if until != "" {
		ends = append(ends, until)
	}
	code, body, err := w.askWhatIfDrain(ctx, node, at, since, ends...)
	if err != nil {
		return err
	}
	if code != http.StatusBadRequest || !strings.Contains(string(body), `"field":"`+field+`"`) || !strings.Contains(string(body), words) {
		return fmt.Errorf("herd's API answers %d %s: want 400 naming %s, saying %q", code, body, field, words)
	}
	return nil
}

func (w *world) askWhatIfDrained(ctx context.Context, node, at, since string) error {
	code, body, err := w.askWhatIfDrain(ctx, node, at, since)
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("herd's API answers the what-if %d: %s", code, body)
	}
	var answer struct {
		Status whatif.Report `json:"status"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return fmt.Errorf("the answer is no WhatIf: %w: %s", err, body)
	}
	w.whatIfAnswer = &answer.Status
	return nil
}

func (w *world) whatIfAnswerDrained(owner, node string) error {
	rep := w.whatIfAnswer
	if rep == nil {
		return fmt.Errorf("no what-if was asked of herd's API")
	}
	for _, d := range rep.Pods {
		if d.Pod != "default/"+owner+"-*" {
			continue
		}
		drained := false
		for _, c := range d.Causes {
			drained = drained || c.Type == "NodeDrainStarted" && c.Stream == "node/"+node && c.Actor == whatif.WhatIfActor
		}
		for _, e := range d.WhatIf {
			if e.Node == node && e.By == "system:herd:drain" && drained {
				return nil
			}
		}
		return fmt.Errorf("the pods of %s: evicted %+v in the what-if, causes %+v: want by the drain of %s, the drain among the causes", owner, d.WhatIf, d.Causes, node)
	}
	return fmt.Errorf("the answer has no eviction of the pods of %s: %+v", owner, rep.Pods)
}

// whatIfAnswerPodDrained: the answer lists pod (a name that outlives
// its pods, as a StatefulSet's) as evicted by the drain in the what-if
// only, and its chain of causes starts from that eviction and goes back
// to the drain, whatever else deleted a pod of that name before.
func (w *world) whatIfAnswerPodDrained(pod string) error {
	rep := w.whatIfAnswer
	if rep == nil {
		return fmt.Errorf("no what-if was asked of herd's API")
	}
	for _, d := range rep.Pods {
		if d.Pod != "default/"+pod {
			continue
		}
		drainedBy := slices.ContainsFunc(d.WhatIf, func(e whatif.Eviction) bool { return e.By == "system:herd:drain" })
		first := len(d.Causes) > 0 && d.Causes[0].Type == "PodDeletionRequested" && d.Causes[0].Actor == "system:herd:drain"
		toDrain := slices.ContainsFunc(d.Causes, func(c whatif.Cause) bool { return c.Type == "NodeDrainStarted" && c.Actor == whatif.WhatIfActor })
		if len(d.Actual) == 0 && drainedBy && first && toDrain {
			return nil
		}
		return fmt.Errorf("pod %s: evicted %+v by herd, %+v in the what-if, causes %+v: want only the what-if's drain, its eviction first among the causes, back to the drain", pod, d.Actual, d.WhatIf, d.Causes)
	}
	return fmt.Errorf("the answer has no eviction of pod %s: %+v", pod, rep.Pods)
}

// askWhatIfBudget asks herd's API what if the budget had had
// maxUnavailable n from since on.
func (w *world) askWhatIfBudget(ctx context.Context, budget string, n int, since string) (int, []byte, error) {
	from, err := w.at(since)
	if err != nil {
		return 0, nil, err
	}
	return w.askWhatIfAPI(ctx, map[string]any{
		"since":   from.UTC().Format(time.RFC3339),
		"budgets": []map[string]any{{"namespace": "default", "name": budget, "maxUnavailable": n}},
	})
}

func (w *world) whatIfAPIBudgetHolds(ctx context.Context, budget string, n int, since, owner, node string) error {
	code, body, err := w.askWhatIfBudget(ctx, budget, n, since)
	if err != nil {
		return err
	}
	var answer struct {
		Spec   map[string]any `json:"spec"`
		Status whatif.Report  `json:"status"`
	}
	if code != http.StatusOK {
		return fmt.Errorf("herd's API answers the what-if %d: %s", code, body)
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return fmt.Errorf("the answer is no WhatIf: %w: %s", err, body)
	}
	if herd, whatIf := evictedFrom(answer.Status.Pods, owner, node, false), evictedFrom(answer.Status.Pods, owner, node, true); herd == 0 || whatIf != 0 {
		return fmt.Errorf("with %s maxUnavailable %d: herd evicted %d pods of %s from %s, the what-if %d; want only herd: %+v", budget, n, herd, owner, node, whatIf, answer.Status.Pods)
	}
	if b, _ := answer.Spec["budgets"].([]any); len(b) != 1 {
		return fmt.Errorf("the answer's spec gives the budgets back as %v, want the one asked", answer.Spec["budgets"])
	}
	return nil
}

func (w *world) whatIfAPIBudgetRefused(ctx context.Context, budget string, n int, since, field, words string) error {
	code, body, err := w.askWhatIfBudget(ctx, budget, n, since)
	if err != nil {
		return err
	}
	if code != http.StatusBadRequest || !strings.Contains(string(body), `"field":"`+field+`"`) || !strings.Contains(string(body), words) {
		return fmt.Errorf("herd's API answers %d %s: want 400 naming %s, saying %q", code, body, field, words)
	}
	return nil
}

// whatIfSetting is the API's settings with one of them given: a
// duration by its text, a threshold as a number.
func whatIfSetting(setting, value string) (map[string]any, error) {
	if setting == "unhealthy-fleet-threshold" {
		t, err := strconv.ParseFloat(value, 64)
		return map[string]any{"unhealthyFleetThreshold": t}, err
	}
	return map[string]any{"nodeMonitorGracePeriod": value}, nil
}

func (w *world) whatIfAPIThresholdEvicts(ctx context.Context, threshold, since, owner, node string) error {
	from, err := w.at(since)
	if err != nil {
		return err
	}
	settings, err := whatIfSetting("unhealthy-fleet-threshold", threshold)
	if err != nil {
		return err
	}
	code, body, err := w.askWhatIfAPI(ctx, map[string]any{"since": from.UTC().Format(time.RFC3339), "settings": settings})
	if err != nil {
		return err
	}
	if code != http.StatusOK {
		return fmt.Errorf("herd's API answers the what-if %d: %s", code, body)
	}
	var answer struct {
		Spec   struct{ Settings map[string]any } `json:"spec"`
		Status whatif.Report                     `json:"status"`
	}
	if err := json.Unmarshal(body, &answer); err != nil {
		return fmt.Errorf("the answer is no WhatIf: %w: %s", err, body)
	}
	if got := fmt.Sprint(answer.Spec.Settings["unhealthyFleetThreshold"]); got != threshold {
		return fmt.Errorf("the answer's spec gives the threshold back as %s, want %s", got, threshold)
	}
	if herd, whatIf := evictedFrom(answer.Status.Pods, owner, node, false), evictedFrom(answer.Status.Pods, owner, node, true); herd != 0 || whatIf == 0 {
		return fmt.Errorf("with a threshold of %s: herd evicted %d pods of %s from %s, the what-if %d; want the what-if alone: %+v", threshold, herd, owner, node, whatIf, answer.Status.Pods)
	}
	return nil
}

func (w *world) whatIfAPIRefused(ctx context.Context, since, setting, value, field string) error {
	from, err := w.at(since)
	if err != nil {
		return err
	}
	settings, err := whatIfSetting(setting, value)
	if err != nil {
		return err
	}
	code, body, err := w.askWhatIfAPI(ctx, map[string]any{"since": from.UTC().Format(time.RFC3339), "settings": settings})
	if err != nil {
		return err
	}
	if code != http.StatusBadRequest || !strings.Contains(string(body), `"field":"`+field+`"`) {
		return fmt.Errorf("herd's API answers %d %s: want 400 naming %s", code, body, field)
	}
	return nil
}
