package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"herd/adapters/conversions"
	"herd/adapters/herdclient"
	"herd/adapters/httpapi"
	"herd/cmd/herd/app"
	"herd/cmd/herd/whatif"
	"herd/reconcilers/scheduler"
)

// whatIfAskTimeout bounds the wait for a server's answer: the server
// stops a what-if at its own --what-if-timeout (2 min by default); this
// only keeps the CLI from waiting for ever on a server that never
// answers.
const whatIfAskTimeout = 15 * time.Minute

// remoteWhatIfSpec is the question o asks, as herd serve's API takes it:
// only the settings whose flags were given, so that the server runs the
// rest with its own (those herd serve runs with).
func remoteWhatIfSpec(o whatIfOptions, flags *pflag.FlagSet) (httpapi.WhatIfSpec, error) {
	if o.since == "" {
		return httpapi.WhatIfSpec{}, errors.New("what-if needs --since: the window to replay, as a duration ago (24h) or an RFC 3339 time")
	}
	spec := httpapi.WhatIfSpec{Since: o.since, Until: o.until}
	if flags.Changed("step") {
		spec.Step = &metav1.Duration{Duration: o.step}
	}
	if flags.Changed("eviction-retry") {
		spec.EvictionRetry = &metav1.Duration{Duration: o.evictionRetry}
	}
	c, s := o.serve, &spec.Settings
	for _, d := range whatif.DurationSettings {
		if flags.Changed(d.Flag) {
			*d.Of(s) = &metav1.Duration{Duration: *d.In(&c)}
		}
	}
	if flags.Changed("reconcilers") {
		s.Reconcilers = c.Reconcilers.Enabled
	}
	if flags.Changed("node-runtime") {
		s.NodeRuntime = c.NodeRuntime
	}
	if flags.Changed("pod-cidr") {
		s.PodCIDR = c.IPAM.Pools
	}
	if flags.Changed("scheduler-scoring-strategy") {
		s.SchedulerScoringStrategy = c.Scheduler.ScoringStrategy
	}
	if flags.Changed("scheduler-scoring-shape") {
		s.SchedulerScoringShape = c.Scheduler.Shape.String()
	}
	for _, n := range whatif.NumberSettings {
		if flags.Changed(n.Flag) {
			v := n.Get(c)
			*n.Of(s) = &v
		}
	}
	var errs []error
	at := func(flag string, vs []string) []httpapi.WhatIfNodeAt {
		var out []httpapi.WhatIfNodeAt
		for _, v := range vs {
			node, when, ok := strings.Cut(v, "@")
			if !ok || node == "" || when == "" {
				errs = append(errs, fmt.Errorf("%s %q: want NODE@TIME, the time an RFC 3339 time or a duration ago (web-01@2026-11-28T14:00:00Z, web-01@3h)", flag, v))
				continue
			}
			out = append(out, httpapi.WhatIfNodeAt{Node: node, At: when})
		}
		return out
	}
	spec.NodeFailures = at("--node-fails", o.fails)
	spec.Drains = at("--drain", o.drains)
	for _, v := range o.budgets {
		b, when, err := budgetFlag(v)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		spec.Budgets = append(spec.Budgets, httpapi.WhatIfBudget{Namespace: b.Namespace, Name: b.Name, At: when,
			MinAvailable: conversions.IntOrPercentToAPI(b.MinAvailable), MaxUnavailable: conversions.IntOrPercentToAPI(b.MaxUnavailable)})
	}
	return spec, errors.Join(errs...)
}

// askWhatIf asks the what-if o of the herd at server and prints its
// answer as the local what-if prints its own.
func askWhatIf(ctx context.Context, cmd *cobra.Command, server string, o whatIfOptions, out io.Writer) error {
	for _, local := range []string{"data-dir", "database", "cpuprofile"} {
		if cmd.Flags().Changed(local) {
			return fmt.Errorf("--%s and --server: with --server herd serve runs the what-if on its own log; give one", local)
		}
	}
	spec, err := remoteWhatIfSpec(o, cmd.Flags())
	if err != nil {
		return err
	}
	token, _ := cmd.Flags().GetString("token")
	caFile, _ := cmd.Flags().GetString("certificate-authority")
	transport, err := clientTransport(caFile)
	if err != nil {
		return err
	}
	hc, err := herdclient.New(herdclient.Config{Server: server, Token: token, Transport: transport, UserAgent: "herd-cli", Timeout: whatIfAskTimeout})
	if err != nil {
		return err
	}
	var answer struct {
		Spec   httpapi.WhatIfSpec `json:"spec"`
		Status whatif.Report      `json:"status"`
	}
	c := &client{hc: hc}
	var query url.Values
	switch {
	case o.showDecisions < 0:
		return fmt.Errorf("--show-decisions=%d: want a positive number of decisions to list", o.showDecisions)
	case o.showDecisions > 0:
		query = url.Values{"limit": {strconv.Itoa(o.showDecisions)}}
	}
	if err := c.do(ctx, http.MethodPost, "/apis/herd.dev/v1/whatifs", query, "", httpapi.WhatIf{APIVersion: "herd.dev/v1", Kind: "WhatIf", Spec: spec}, &answer); err != nil {
		return err
	}
	cfg, err := answeredConfig(answer.Spec)
	if err != nil {
		return fmt.Errorf("herd at %s answered a question the CLI cannot read: %w", server, err)
	}
	printWhatIf(out, answer.Status, cfg)
	if o.showDecisions > 0 {
		printDecisions(out, answer.Status)
	}
	return nil
}

// answeredConfig is the question as the server ran it, as printWhatIf
// tells it: its settings and the changed inputs.
func answeredConfig(s httpapi.WhatIfSpec) (whatif.Config, error) {
	cfg := whatif.Config{Serve: app.DefaultConfig()}
	var err error
	if cfg.Since, err = time.Parse(time.RFC3339Nano, s.Since); err != nil {
		return cfg, err
	}
	set := func(d *metav1.Duration, into *time.Duration) {
		if d != nil {
			*into = d.Duration
		}
	}
	if r := s.EvictionRetry; r != nil {
		retry := r.Duration
		cfg.EvictionRetry = &retry
	}
	h := &cfg.Serve.Health
	set(s.Settings.NodeMonitorGracePeriod, &h.GracePeriod)
	set(s.Settings.NodeMonitorPeriod, &h.MonitorPeriod)
	set(s.Settings.NodeStartupGracePeriod, &h.StartupGracePeriod)
	for _, n := range whatif.NumberSettings {
		if v := *n.Of(&s.Settings); v != nil {
			n.Set(&cfg.Serve, *v)
		}
	}
	if v := s.Settings.SchedulerScoringStrategy; v != "" {
		cfg.Serve.Scheduler.ScoringStrategy = v
	}
	if shape, err := scheduler.ParseShape(s.Settings.SchedulerScoringShape); err == nil && shape != nil {
		cfg.Serve.Scheduler.Shape = shape
	}
	for _, f := range s.NodeFailures {
		at, err := time.Parse(time.RFC3339Nano, f.At)
		if err != nil {
			return cfg, err
		}
		cfg.Failed = append(cfg.Failed, whatif.NodeFailure{Node: f.Node, At: at})
	}
	for _, d := range s.Drains {
		at, err := time.Parse(time.RFC3339Nano, d.At)
		if err != nil {
			return cfg, err
		}
		cfg.Drains = append(cfg.Drains, whatif.Drain{Node: d.Node, At: at})
	}
	for i, b := range s.Budgets {
		path := field.NewPath("spec", "budgets").Index(i)
		c := whatif.BudgetChange{Namespace: b.Namespace, Name: b.Name}
		var errs field.ErrorList
		c.MinAvailable, errs = conversions.IntOrPercentFromAPI(b.MinAvailable, path.Child("minAvailable"))
		if len(errs) == 0 {
			c.MaxUnavailable, errs = conversions.IntOrPercentFromAPI(b.MaxUnavailable, path.Child("maxUnavailable"))
		}
		if len(errs) > 0 {
			return cfg, errs.ToAggregate()
		}
		if c.At, err = time.Parse(time.RFC3339Nano, b.At); err != nil {
			return cfg, err
		}
		cfg.Budgets = append(cfg.Budgets, c)
	}
	return cfg, nil
}
