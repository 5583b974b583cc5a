package whatif

import (
	"context"
	"errors"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"herd/adapters/httpapi"
	"herd/cmd/herd/app"
	"herd/events"
	"herd/reconcilers/health"
	"herd/reconcilers/scheduler"
)

// APIRunner runs the what-ifs asked through herd serve's API
// (httpapi.WhatIfRunner) on its own log, with herd serve's own settings
// but those the question changes. The engine runs herd's engine
// (cmd/herd/app) itself, so app cannot import it: the binary wires it
// into the API with app.WhatIfOption(NewAPIRunner).
type APIRunner struct {
	log  events.Log
	base app.Config
}

// NewAPIRunner is the runner of what-ifs on herd serve's log, under its
// settings cfg.
func NewAPIRunner(log events.Log, cfg app.Config) *APIRunner {
	return &APIRunner{log: log, base: cfg}
}

// DurationSetting is one of herd serve's durations a what-if may change:
// its name in the API's question, its flag, whether 0 is allowed, and
// where it lives in herd serve's settings and in the question.
type DurationSetting struct {
	Name, Flag string
	ZeroOK     bool
	In         func(*app.Config) *time.Duration
	Of         func(*httpapi.WhatIfSettings) **metav1.Duration
}

// DurationSettings are the durations a what-if may change, the one list
// the API's question, its checks and answer, and herd what-if --server
// read.
var DurationSettings = []DurationSetting{
	{Name: "nodeMonitorGracePeriod", Flag: "node-monitor-grace-period",
		In: func(c *app.Config) *time.Duration { return &c.Health.GracePeriod },
		Of: func(s *httpapi.WhatIfSettings) **metav1.Duration { return &s.NodeMonitorGracePeriod }},
	{Name: "nodeMonitorPeriod", Flag: "node-monitor-period",
		In: func(c *app.Config) *time.Duration { return &c.Health.MonitorPeriod },
		Of: func(s *httpapi.WhatIfSettings) **metav1.Duration { return &s.NodeMonitorPeriod }},
	{Name: "nodeStartupGracePeriod", Flag: "node-startup-grace-period",
		In: func(c *app.Config) *time.Duration { return &c.Health.StartupGracePeriod },
		Of: func(s *httpapi.WhatIfSettings) **metav1.Duration { return &s.NodeStartupGracePeriod }},
	{Name: "pressureTransitionPeriod", Flag: "pressure-transition-period", ZeroOK: true,
		In: func(c *app.Config) *time.Duration { return &c.Thresholds.TransitionPeriod },
		Of: func(s *httpapi.WhatIfSettings) **metav1.Duration { return &s.PressureTransitionPeriod }},
	{Name: "schedulerResyncPeriod", Flag: "scheduler-resync-period",
		In: func(c *app.Config) *time.Duration { return &c.Scheduler.ResyncPeriod },
		Of: func(s *httpapi.WhatIfSettings) **metav1.Duration { return &s.SchedulerResyncPeriod }},
	{Name: "mockShutdownDelay", Flag: "mock-shutdown-delay", ZeroOK: true,
		In: func(c *app.Config) *time.Duration { return &c.MockRuntime.ShutdownDelay },
		Of: func(s *httpapi.WhatIfSettings) **metav1.Duration { return &s.MockShutdownDelay }},
	{Name: "podGCTimeout", Flag: "pod-gc-timeout",
		In: func(c *app.Config) *time.Duration { return &c.Termination.PodGCTimeout },
		Of: func(s *httpapi.WhatIfSettings) **metav1.Duration { return &s.PodGCTimeout }},
}

// NumberSetting is one of herd serve's numbers a what-if may change: its
// name in the API's question, its flag, herd serve's check of it, how to
// read and set it in herd serve's settings (where it may be a whole
// number), and where it lives in the question.
type NumberSetting struct {
	Name, Flag string
	Check      func(v float64) error
	Get        func(app.Config) float64
	Set        func(*app.Config, float64)
	Of         func(*httpapi.WhatIfSettings) **float64
}

// numberSetting is a NumberSetting held in herd serve's settings at in.
func numberSetting[T float64 | int](name, flag string, check func(float64) error, in func(*app.Config) *T, of func(*httpapi.WhatIfSettings) **float64) NumberSetting {
	return NumberSetting{Name: name, Flag: flag, Check: check, Of: of,
		Get: func(c app.Config) float64 { return float64(*in(&c)) },
		Set: func(c *app.Config, v float64) { *in(c) = T(v) }}
}

// NumberSettings are the numbers a what-if may change, the one list the
// API's question, its checks and answer, and herd what-if --server read.
var NumberSettings = []NumberSetting{
	numberSetting("unhealthyFleetThreshold", "unhealthy-fleet-threshold", health.CheckUnhealthyThreshold,
		func(c *app.Config) *float64 { return &c.Health.UnhealthyThreshold },
		func(s *httpapi.WhatIfSettings) **float64 { return &s.UnhealthyFleetThreshold }),
	numberSetting("nodeEvictionRate", "node-eviction-rate", health.CheckEvictionRate,
		func(c *app.Config) *float64 { return &c.Health.EvictionRate },
		func(s *httpapi.WhatIfSettings) **float64 { return &s.NodeEvictionRate }),
	numberSetting("secondaryNodeEvictionRate", "secondary-node-eviction-rate", health.CheckSecondaryEvictionRate,
		func(c *app.Config) *float64 { return &c.Health.SecondaryEvictionRate },
		func(s *httpapi.WhatIfSettings) **float64 { return &s.SecondaryNodeEvictionRate }),
	numberSetting("largeFleetSizeThreshold", "large-fleet-size-threshold", health.CheckLargeFleetThreshold,
		func(c *app.Config) *int { return &c.Health.LargeFleetThreshold },
		func(s *httpapi.WhatIfSettings) **float64 { return &s.LargeFleetSizeThreshold }),
}

// settings applies the overrides to herd serve's settings; shapeErr
// says why the scoring shape asked for could not be read (the shape
// then stays herd serve's).
func (a *APIRunner) settings(o httpapi.WhatIfSettings) (c app.Config, shapeErr error) {
	c = a.base
	for _, d := range DurationSettings {
		if v := *d.Of(&o); v != nil {
			*d.In(&c) = v.Duration
		}
	}
	if o.Reconcilers != nil {
		c.Reconcilers.Enabled = o.Reconcilers
	}
	if o.NodeRuntime != "" {
		c.NodeRuntime = o.NodeRuntime
	}
	if o.PodCIDR != nil {
		c.IPAM.Pools = o.PodCIDR
	}
	for _, n := range NumberSettings {
		if v := *n.Of(&o); v != nil {
			n.Set(&c, *v)
		}
	}
	if o.SchedulerScoringStrategy != "" {
		c.Scheduler.ScoringStrategy = o.SchedulerScoringStrategy
	}
	shape, shapeErr := scheduler.ParseShape(o.SchedulerScoringShape)
	if shapeErr == nil && shape != nil {
		c.Scheduler.Shape = shape
	}
	return c, shapeErr
}

// WhatIfSettings implements httpapi.WhatIfRunner: herd serve's settings
// with the overrides, each checked as herd serve checks its flag.
func (a *APIRunner) WhatIfSettings(o httpapi.WhatIfSettings, p *field.Path) (httpapi.WhatIfSettings, field.ErrorList) {
	c, shapeErr := a.settings(o)
	var errs field.ErrorList
	for _, d := range DurationSettings {
		v := *d.Of(&o)
		if v == nil {
			continue
		}
		if v.Duration < 0 || v.Duration == 0 && !d.ZeroOK {
			errs = append(errs, field.Invalid(p.Child(d.Name), v.Duration.String(), "want a positive duration"))
		}
	}
	for _, n := range NumberSettings {
		if v := *n.Of(&o); v != nil {
			if err := n.Check(*v); err != nil {
				errs = append(errs, field.Invalid(p.Child(n.Name), *v, err.Error()))
			}
		}
	}
	if s := o.SchedulerScoringStrategy; s != "" && c.Scheduler.ScoringStrategyError() != nil {
		errs = append(errs, field.NotSupported(p.Child("schedulerScoringStrategy"), s, scheduler.ScoringStrategies))
	}
	if shapeErr != nil {
		errs = append(errs, field.Invalid(p.Child("schedulerScoringShape"), o.SchedulerScoringShape, shapeErr.Error()))
	} else if err := c.Scheduler.ShapeError(); err != nil && c.Scheduler.ScoringStrategyError() == nil {
		errs = append(errs, field.Invalid(p.Child("schedulerScoringShape"), o.SchedulerScoringShape, err.Error()))
	}
	if len(errs) == 0 {
		// What the rules say of the settings together: a grace period
		// no longer than the monitor period, and the like.
		if err := c.Health.Validate(); err != nil {
			errs = append(errs, field.Invalid(p.Child("nodeMonitorGracePeriod"), c.Health.GracePeriod.String(), err.Error()))
		}
		if err := c.Scheduler.Validate(); err != nil {
			errs = append(errs, field.Invalid(p.Child("schedulerResyncPeriod"), c.Scheduler.ResyncPeriod.String(), err.Error()))
		}
		if err := c.Termination.Validate(); err != nil {
			errs = append(errs, field.Invalid(p.Child("podGCTimeout"), c.Termination.PodGCTimeout.String(), err.Error()))
		}
	}
	if err := c.Reconcilers.Validate(app.ServeReconcilers); err != nil {
		errs = append(errs, field.Invalid(p.Child("reconcilers"), o.Reconcilers, err.Error()))
	}
	if _, err := c.IPAM.Validate(); err != nil {
		errs = append(errs, field.Invalid(p.Child("podCIDR"), o.PodCIDR, err.Error()))
	}
	if c.NodeRuntime != app.NodeRuntimeMock && c.NodeRuntime != app.NodeRuntimeNone {
		errs = append(errs, field.NotSupported(p.Child("nodeRuntime"), c.NodeRuntime, []string{app.NodeRuntimeMock, app.NodeRuntimeNone}))
	}
	out := httpapi.WhatIfSettings{Reconcilers: c.Reconcilers.Enabled, NodeRuntime: c.NodeRuntime, PodCIDR: c.IPAM.Pools,
		SchedulerScoringStrategy: c.Scheduler.ScoringStrategy, SchedulerScoringShape: c.Scheduler.Shape.String()}
	for _, d := range DurationSettings {
		*d.Of(&out) = &metav1.Duration{Duration: *d.In(&c)}
	}
	for _, n := range NumberSettings {
		*n.Of(&out) = ptr.To(n.Get(c))
	}
	return out, errs
}

// RunWhatIf implements httpapi.WhatIfRunner: the question run on herd
// serve's log, which it only reads.
func (a *APIRunner) RunWhatIf(ctx context.Context, q httpapi.WhatIfQuestion) (any, error) {
	serve, err := a.settings(q.Settings)
	if err != nil {
		return nil, httpapi.WhatIfBadInput(field.ErrorList{field.Invalid(field.NewPath("spec", "settings", "schedulerScoringShape"), q.Settings.SchedulerScoringShape, err.Error())})
	}
	cfg := Config{Since: q.Since, Until: q.Until, Step: q.Step, Serve: serve, Limit: q.Limit, EvictionRetry: q.EvictionRetry}
	for _, n := range q.NodeFailures {
		cfg.Failed = append(cfg.Failed, NodeFailure{Node: n.Node, At: n.At})
	}
	for _, n := range q.Drains {
		cfg.Drains = append(cfg.Drains, Drain{Node: n.Node, At: n.At})
	}
	for _, b := range q.Budgets {
		cfg.Budgets = append(cfg.Budgets, BudgetChange{Namespace: b.Namespace, Name: b.Name, MinAvailable: b.MinAvailable, MaxUnavailable: b.MaxUnavailable, At: b.At})
	}
	rep, err := Run(ctx, a.log, cfg)
	var thinned *ThinnedError
	if errors.As(err, &thinned) {
		return nil, httpapi.WhatIfBadInput(field.ErrorList{field.Invalid(field.NewPath("spec", "since"), q.Since.UTC().Format(time.RFC3339), err.Error())})
	}
	var input *InputError
	if errors.As(err, &input) {
		var value string
		switch input.Field {
		case "budgets":
			value = cfg.Budgets[input.Index].Namespace + "/" + cfg.Budgets[input.Index].Name
		case "drains":
			value = cfg.Drains[input.Index].Node
		case "nodeFailures":
			value = cfg.Failed[input.Index].Node
		}
		return nil, httpapi.WhatIfBadInput(field.ErrorList{field.Invalid(field.NewPath("spec", input.Field).Index(input.Index), value, err.Error())})
	}
	if err != nil {
		return nil, err
	}
	return rep, nil
}
