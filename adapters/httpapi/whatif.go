package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"herd/adapters/conversions"
	"herd/domain"
)

// A what-if (POST /apis/herd.dev/v1/whatifs) runs herd's reconcilers
// again on a window of the log, in a scratch log of their own, and
// answers how the window would have gone under other settings or with
// other inputs. Like a SelfSubjectAccessReview it is a question posted
// and answered, never stored: it writes nothing to the real log, so
// that whoever may read the fleet's history (viewers) may ask it.

// Defaults of the what-if's bounds (Config.WhatIfTimeout,
// Config.WhatIfMaxWindow).
const (
	// defaultWhatIfTimeout bounds one what-if: an hour of a small
	// fleet's history takes seconds; minutes of herd's CPU for one
	// question would starve the fleet it serves.
	defaultWhatIfTimeout = 2 * time.Minute
	// defaultWhatIfMaxWindow is the longest window a what-if may ask:
	// a day, the longest an operator looks back at one incident.
	defaultWhatIfMaxWindow = 24 * time.Hour
	// minWhatIfStep is the shortest step: a shorter one only spends
	// CPU, since reconcilers' timers are seconds apart.
	minWhatIfStep = 100 * time.Millisecond
	// whatIfRetryAfter is the Retry-After of a what-if refused while
	// another runs, in seconds.
	whatIfRetryAfter = 10
	// whatIfClockSkew is how far ahead of herd's clock a time in a
	// question may be and still be taken: the web view sends its
	// browser's "now", whose clock may run a little ahead of herd's.
	whatIfClockSkew = 5 * time.Second
	// maxWhatIfLimit is the most decisions of each kind (only herd's,
	// only the what-if's) an answer lists (?limit=): each comes with
	// its chain of causes; the counts are always whole.
	maxWhatIfLimit = 10000
)

// WhatIfRunner asks what-ifs of herd's log: the API parses and checks
// the question's form, the runner (wired by the binary, which owns the
// engine) knows herd serve's settings and runs the simulation.
type WhatIfRunner interface {
	// WhatIfSettings are the settings a what-if with these overrides
	// runs under (herd serve's own, each override replacing one), or
	// what is wrong with them, each error under path.
	WhatIfSettings(overrides WhatIfSettings, path *field.Path) (WhatIfSettings, field.ErrorList)
	// RunWhatIf asks q of the log, reading only, until ctx ends. The
	// report comes back as it is encoded in JSON; an error the asker
	// caused is a WhatIfBadInput.
	RunWhatIf(ctx context.Context, q WhatIfQuestion) (any, error)
}

// WhatIf is a what-if question and, once answered, its report.
type WhatIf struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// Spec is the question; the answer gives it back resolved: times as
	// RFC 3339, every setting as the run had it.
	Spec WhatIfSpec `json:"spec"`
	// Status is the report: what herd's reconcilers would have done
	// otherwise, each difference with its chain of causes.
	Status any `json:"status,omitempty"`
}

// WhatIfSpec is the question, as `herd what-if` takes it on the command
// line.
type WhatIfSpec struct {
	// Since is the window's start: an RFC 3339 time, or a duration ago
	// ("1h"). Required.
	Since string `json:"since"`
	// Until is the window's end, likewise; empty is the log's newest
	// event.
	Until string `json:"until,omitempty"`
	// Step is the longest the simulated clock moves at once; empty
	// moves it from each time a reconciler waits for to the next.
	Step *metav1.Duration `json:"step,omitempty"`
	// Settings are herd's settings in the what-if; each one left out
	// is herd serve's own.
	Settings WhatIfSettings `json:"settings"`
	// NodeFailures are nodes that fall silent: from its time nothing
	// the node sent reaches herd.
	NodeFailures []WhatIfNodeAt `json:"nodeFailures,omitempty"`
	// Drains are drains an operator starts.
	Drains []WhatIfNodeAt `json:"drains,omitempty"`
	// Budgets are changes an operator makes to PodDisruptionBudgets.
	Budgets []WhatIfBudget `json:"budgets,omitempty"`
	// EvictionRetry is how often a client (kubectl drain) asks again
	// for an eviction the what-if's budget refused, until it is granted
	// or the window ends; empty is 5s, kubectl drain's; "0s" asks once.
	EvictionRetry *metav1.Duration `json:"evictionRetry,omitempty"`
}

// WhatIfBudget is a PodDisruptionBudget given another minAvailable or
// maxUnavailable (one of them, a count or a percentage) at a time.
type WhatIfBudget struct {
	Namespace      string              `json:"namespace"`
	Name           string              `json:"name"`
	MinAvailable   *intstr.IntOrString `json:"minAvailable,omitempty"`
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// At is an RFC 3339 time, or a duration ago; empty is the window's
	// start.
	At string `json:"at,omitempty"`
}

// WhatIfSettings are the settings of herd serve a what-if may change,
// by the names of its flags.
type WhatIfSettings struct {
	NodeMonitorGracePeriod   *metav1.Duration `json:"nodeMonitorGracePeriod,omitempty"`
	NodeMonitorPeriod        *metav1.Duration `json:"nodeMonitorPeriod,omitempty"`
	NodeStartupGracePeriod   *metav1.Duration `json:"nodeStartupGracePeriod,omitempty"`
	PressureTransitionPeriod *metav1.Duration `json:"pressureTransitionPeriod,omitempty"`
	SchedulerResyncPeriod    *metav1.Duration `json:"schedulerResyncPeriod,omitempty"`
	MockShutdownDelay        *metav1.Duration `json:"mockShutdownDelay,omitempty"`
	PodGCTimeout             *metav1.Duration `json:"podGCTimeout,omitempty"`
	// UnhealthyFleetThreshold is the share of the fleet (of three nodes
	// or more) unreachable at once at which herd withholds or slows
	// NoExecute taints: above 0, at most 1.
	UnhealthyFleetThreshold *float64 `json:"unhealthyFleetThreshold,omitempty"`
	// NodeEvictionRate is how many nodes a second get the NoExecute
	// taint their Ready condition calls for; 0 is no limit.
	NodeEvictionRate *float64 `json:"nodeEvictionRate,omitempty"`
	// SecondaryNodeEvictionRate is how many nodes a second get it while
	// the fleet is disrupted but partly reachable, in a fleet larger than
	// LargeFleetSizeThreshold; 0 withholds them.
	SecondaryNodeEvictionRate *float64 `json:"secondaryNodeEvictionRate,omitempty"`
	// LargeFleetSizeThreshold is the fleet size above which a disruption
	// slows NoExecute taints rather than withholding them: a whole
	// number, 0 or more.
	LargeFleetSizeThreshold *float64 `json:"largeFleetSizeThreshold,omitempty"`
	// SchedulerScoringStrategy is LeastAllocated (spread) or
	// MostAllocated (pack).
	SchedulerScoringStrategy string `json:"schedulerScoringStrategy,omitempty"`
	// SchedulerScoringShape is RequestedToCapacityRatio's scoring
	// function, UTILIZATION=SCORE points ("0=0,100=10").
	SchedulerScoringShape string `json:"schedulerScoringShape,omitempty"`
	// Reconcilers are those to run: "*" for all, "-name" to switch
	// one off.
	Reconcilers []string `json:"reconcilers,omitempty"`
	// NodeRuntime is "mock" or "none", as herd serve ran.
	NodeRuntime string `json:"nodeRuntime,omitempty"`
	// PodCIDR are the pools pod addresses come from.
	PodCIDR []string `json:"podCIDR,omitempty"`
}

// WhatIfNodeAt is a node and a time: when it fails, or is drained.
type WhatIfNodeAt struct {
	Node string `json:"node"`
	// At is an RFC 3339 time, or a duration ago.
	At string `json:"at"`
}

// WhatIfQuestion is a WhatIfSpec checked and resolved: what the runner
// is asked.
type WhatIfQuestion struct {
	Since time.Time
	// Until is zero for the log's newest event.
	Until time.Time
	Step  time.Duration
	// Settings are the overrides as the asker gave them.
	Settings             WhatIfSettings
	NodeFailures, Drains []NodeAt
	Budgets              []BudgetAt
	// EvictionRetry is nil for the runner's default, 0 for a client
	// that asks once.
	EvictionRetry *time.Duration
	// Limit is how many decisions of each kind the answer lists
	// (?limit=); 0 is the runner's default.
	Limit int
}

// BudgetAt is a budget's change, read: one of MinAvailable and
// MaxUnavailable set; At zero for the window's start.
type BudgetAt struct {
	Namespace, Name              string
	MinAvailable, MaxUnavailable *domain.IntOrPercent
	At                           time.Time
}

// NodeAt is a node and a resolved time.
type NodeAt struct {
	Node string
	At   time.Time
}

// WhatIfBadInput is the 400 of a what-if the asker got wrong, each error
// naming its field: the API's own checks, and the runner's.
func WhatIfBadInput(errs field.ErrorList) error {
	st := metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusBadRequest, Reason: metav1.StatusReasonBadRequest,
		Message: "WhatIf is invalid: " + errs.ToAggregate().Error(),
		Details: &metav1.StatusDetails{Group: herdGroup, Kind: "whatifs"},
	}
	for _, e := range errs {
		st.Details.Causes = append(st.Details.Causes, metav1.StatusCause{Type: metav1.CauseType(e.Type), Message: e.ErrorBody(), Field: e.Field})
	}
	return &apierrors.StatusError{ErrStatus: st}
}

// whatIfKind serves what-ifs: created (asked), never stored. Served only
// when herd has a runner.
func (s *Server) whatIfKind() *kind {
	return &kind{gv: herdGV, resource: "whatifs", singular: "whatif", name: "WhatIf", verbs: verbs{create: s.createWhatIf, dryRun: true}}
}

// isWhatIf says whether ri asks a what-if: a read of history, allowed
// to viewers.
func isWhatIf(ri requestInfo) bool {
	return ri.Verb == "create" && ri.Group == herdGroup && ri.Resource == "whatifs" && ri.Name == "" && ri.Subresource == ""
}

func (c Config) whatIfTimeout() time.Duration {
	if c.WhatIfTimeout > 0 {
		return c.WhatIfTimeout
	}
	return defaultWhatIfTimeout
}

func (c Config) whatIfMaxWindow() time.Duration {
	if c.WhatIfMaxWindow > 0 {
		return c.WhatIfMaxWindow
	}
	return defaultWhatIfMaxWindow
}

// createWhatIf answers a what-if: checks the question, runs it (one at
// a time, within the time limit) and gives back the report. A dry run
// (?dryRun=All) checks the question and gives it back resolved, every
// setting as herd would run it, without running it: the web view's What
// if page learns from it which settings a what-if may change and herd
// serve's own value of each, so that the list is the server's alone.
// ?limit=N has the answer list the first N decisions of each kind that
// differ (whatIfLimit); it counts them all whatever N is.
func (s *Server) createWhatIf(w http.ResponseWriter, r *http.Request) {
	dry, err := dryRunOf(r)
	if err != nil {
		s.writeError(w, err, "WhatIf", "")
		return
	}
	var in WhatIf
	if err := decodeWhatIf(r, &in); err != nil {
		s.writeError(w, err, "WhatIf", "")
		return
	}
	q, settings, err := s.whatIfQuestion(in.Spec)
	if err != nil {
		s.writeError(w, err, "WhatIf", "")
		return
	}
	if q.Limit, err = whatIfLimit(r); err != nil {
		s.writeError(w, err, "WhatIf", "")
		return
	}
	if dry {
		s.writeJSON(w, http.StatusOK, WhatIf{APIVersion: herdGroup + "/" + herdVersion, Kind: "WhatIf", Spec: resolvedSpec(in.Spec, q, settings)})
		return
	}
	select {
	case s.whatIfs <- struct{}{}:
		defer func() { <-s.whatIfs }()
	default:
		s.writeError(w, apierrors.NewTooManyRequests(fmt.Sprintf(
			"another what-if is running: herd runs one at a time, so that the fleet it serves keeps its CPU; retry after %d seconds", whatIfRetryAfter),
			whatIfRetryAfter), "WhatIf", "")
		return
	}
	limit := s.cfg.whatIfTimeout()
	ctx, cancel := context.WithTimeout(r.Context(), limit)
	defer cancel()
	rep, err := s.WhatIf.RunWhatIf(ctx, q)
	if err != nil {
		var st apierrors.APIStatus
		if !errors.As(err, &st) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			err = apierrors.NewTimeoutError(fmt.Sprintf(
				"the what-if did not finish within herd's limit of %s (--what-if-timeout): ask a shorter window, or fewer changes; it was stopped and changed nothing", limit), 0)
		}
		s.writeError(w, err, "WhatIf", "")
		return
	}
	out := WhatIf{APIVersion: herdGroup + "/" + herdVersion, Kind: "WhatIf", Spec: resolvedSpec(in.Spec, q, settings), Status: rep}
	s.writeJSON(w, http.StatusOK, out)
}

// whatIfLimit reads ?limit=: how many decisions of each kind the answer
// lists, 1 to maxWhatIfLimit; none given is 0, the runner's default.
func whatIfLimit(r *http.Request) (int, error) {
	v := r.URL.Query()["limit"]
	if len(v) == 0 {
		return 0, nil
	}
	n, err := strconv.Atoi(v[0])
	if len(v) > 1 || err != nil || n < 1 || n > maxWhatIfLimit {
		return 0, badRequest("limit %q: want how many decisions of each kind the answer lists, a number from 1 to %d (the counts are always whole)", strings.Join(v, ","), maxWhatIfLimit)
	}
	return n, nil
}

// decodeWhatIf reads the question strictly: a setting misspelt would
// otherwise be dropped and the answer be to another question.
func decodeWhatIf(r *http.Request, into *WhatIf) error {
	data, err := readBody(r)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(into); err != nil {
		return badRequest("the request body is not a valid WhatIf: %v", err)
	}
	if dec.More() {
		return badRequest("the request body is not a valid WhatIf: more than one JSON document")
	}
	if into.Kind != "" && into.Kind != "WhatIf" {
		return badRequest("kind: the body is a %s, not a WhatIf", into.Kind)
	}
	if v := into.APIVersion; v != "" && v != herdGroup+"/"+herdVersion {
		return badRequest("apiVersion: %q, want %s/%s", v, herdGroup, herdVersion)
	}
	return nil
}

// whatIfQuestion checks spec and resolves its times against herd's
// clock; the settings are checked by the runner, which knows herd
// serve's.
func (s *Server) whatIfQuestion(spec WhatIfSpec) (WhatIfQuestion, WhatIfSettings, error) {
	now := s.Clock.Now()
	p := field.NewPath("spec")
	var errs field.ErrorList
	q := WhatIfQuestion{Settings: spec.Settings}
	var err error
	if spec.Since == "" {
		errs = append(errs, field.Required(p.Child("since"), "the window's start: an RFC 3339 time or a duration ago (1h)"))
	} else if q.Since, err = whatIfTime(spec.Since, now); err != nil {
		errs = append(errs, field.Invalid(p.Child("since"), spec.Since, err.Error()))
	}
	if spec.Until != "" {
		if q.Until, err = whatIfTime(spec.Until, now); err != nil {
			errs = append(errs, field.Invalid(p.Child("until"), spec.Until, err.Error()))
		}
	}
	if !q.Since.IsZero() && len(errs) == 0 {
		end := q.Until
		if end.IsZero() {
			end = now
		}
		switch limit := s.cfg.whatIfMaxWindow(); {
		case !q.Until.IsZero() && q.Until.Before(q.Since):
			errs = append(errs, field.Invalid(p.Child("until"), spec.Until, "before since "+q.Since.UTC().Format(time.RFC3339)))
		case end.Sub(q.Since) > limit:
			f, v := p.Child("until"), spec.Until
			if spec.Until == "" {
				f, v = p.Child("since"), spec.Since
			}
			errs = append(errs, field.Invalid(f, v, fmt.Sprintf("the window from %s to %s is %s long; herd asks a what-if of at most %s (--what-if-max-window)",
				q.Since.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339), end.Sub(q.Since).Round(time.Second), limit)))
		}
	}
	if spec.Step != nil {
		if q.Step = spec.Step.Duration; q.Step < minWhatIfStep {
			errs = append(errs, field.Invalid(p.Child("step"), spec.Step.Duration.String(), fmt.Sprintf("want at least %s, or none", minWhatIfStep)))
		}
	}
	if r := spec.EvictionRetry; r != nil {
		if r.Duration < 0 {
			errs = append(errs, field.Invalid(p.Child("evictionRetry"), r.Duration.String(), "want a positive duration, or 0s for a client that asks once"))
		}
		q.EvictionRetry = ptr.To(r.Duration)
	}
	resolve := func(name string, in []WhatIfNodeAt) []NodeAt {
		var out []NodeAt
		for i, n := range in {
			ip := p.Child(name).Index(i)
			for _, msg := range validation.IsDNS1123Subdomain(n.Node) {
				errs = append(errs, field.Invalid(ip.Child("node"), n.Node, msg))
			}
			if n.Node == "" {
				continue
			}
			at, err := whatIfTime(n.At, now)
			if err != nil {
				errs = append(errs, field.Invalid(ip.Child("at"), n.At, err.Error()))
				continue
			}
			out = append(out, NodeAt{Node: n.Node, At: at})
		}
		return out
	}
	q.NodeFailures = resolve("nodeFailures", spec.NodeFailures)
	q.Drains = resolve("drains", spec.Drains)
	for i, b := range spec.Budgets {
		bp := p.Child("budgets").Index(i)
		for _, c := range []struct {
			path  *field.Path
			value string
		}{{bp.Child("namespace"), b.Namespace}, {bp.Child("name"), b.Name}} {
			for _, msg := range validation.IsDNS1123Subdomain(c.value) {
				errs = append(errs, field.Invalid(c.path, c.value, msg))
			}
		}
		out := BudgetAt{Namespace: b.Namespace, Name: b.Name}
		var berrs field.ErrorList
		out.MinAvailable, berrs = whatIfBudgetValue(b.MinAvailable, bp.Child("minAvailable"))
		errs = append(errs, berrs...)
		out.MaxUnavailable, berrs = whatIfBudgetValue(b.MaxUnavailable, bp.Child("maxUnavailable"))
		errs = append(errs, berrs...)
		if (b.MinAvailable == nil) == (b.MaxUnavailable == nil) {
			errs = append(errs, field.Invalid(bp, b.Namespace+"/"+b.Name, "give minAvailable or maxUnavailable, one of them"))
		}
		if b.At != "" {
			at, err := whatIfTime(b.At, now)
			if err != nil {
				errs = append(errs, field.Invalid(bp.Child("at"), b.At, err.Error()))
			}
			out.At = at
		}
		q.Budgets = append(q.Budgets, out)
	}
	settings, serrs := s.WhatIf.WhatIfSettings(spec.Settings, p.Child("settings"))
	errs = append(errs, serrs...)
	if len(errs) > 0 {
		return q, settings, WhatIfBadInput(errs)
	}
	return q, settings, nil
}

// whatIfBudgetValue reads a budget's minAvailable or maxUnavailable: a
// count of pods, or a percentage from 0% to 100%.
func whatIfBudgetValue(v *intstr.IntOrString, path *field.Path) (*domain.IntOrPercent, field.ErrorList) {
	out, errs := conversions.IntOrPercentFromAPI(v, path)
	if out != nil && (out.Value < 0 || out.Percent && out.Value > 100) {
		errs = append(errs, field.Invalid(path, out.String(), "must be a count of pods or a percentage from 0% to 100%"))
	}
	return out, errs
}

// whatIfTime reads a time of the question: RFC 3339, or a positive
// duration ago, as the CLI's flags.
func whatIfTime(s string, now time.Time) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		if t.After(now.Add(whatIfClockSkew)) {
			return time.Time{}, fmt.Errorf("%s is in the future (herd's clock reads %s): a what-if asks of the past", t.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
		}
		return t, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil || d <= 0 {
		return time.Time{}, errors.New("want an RFC 3339 time (2026-11-28T14:00:00Z) or a duration ago (1h)")
	}
	return now.Add(-d), nil
}

// resolvedSpec is the question as it was run: times in RFC 3339 and
// every setting herd ran it with.
func resolvedSpec(in WhatIfSpec, q WhatIfQuestion, settings WhatIfSettings) WhatIfSpec {
	stamp := func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }
	out := WhatIfSpec{Since: stamp(q.Since), Step: in.Step, Settings: settings, EvictionRetry: in.EvictionRetry}
	if !q.Until.IsZero() {
		out.Until = stamp(q.Until)
	}
	for _, n := range q.NodeFailures {
		out.NodeFailures = append(out.NodeFailures, WhatIfNodeAt{Node: n.Node, At: stamp(n.At)})
	}
	for _, n := range q.Drains {
		out.Drains = append(out.Drains, WhatIfNodeAt{Node: n.Node, At: stamp(n.At)})
	}
	for _, b := range q.Budgets {
		at := b.At
		if at.IsZero() {
			at = q.Since
		}
		out.Budgets = append(out.Budgets, WhatIfBudget{Namespace: b.Namespace, Name: b.Name,
			MinAvailable: conversions.IntOrPercentToAPI(b.MinAvailable), MaxUnavailable: conversions.IntOrPercentToAPI(b.MaxUnavailable), At: stamp(at)})
	}
	return out
}
