package whatif

import (
	"context"
	"errors"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"herd/adapters/httpapi"
	"herd/cmd/herd/app"
	"herd/events"
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

// settings applies the overrides to herd serve's settings.
func (a *APIRunner) settings(o httpapi.WhatIfSettings) app.Config {
	c := a.base
	set := func(d *metav1.Duration, into *time.Duration) {
		if d != nil {
			*into = d.Duration
		}
	}
	set(o.NodeMonitorGracePeriod, &c.Health.GracePeriod)
	set(o.NodeMonitorPeriod, &c.Health.MonitorPeriod)
	set(o.NodeStartupGracePeriod, &c.Health.StartupGracePeriod)
	set(o.PressureTransitionPeriod, &c.Thresholds.TransitionPeriod)
	set(o.SchedulerResyncPeriod, &c.Scheduler.ResyncPeriod)
	set(o.MockShutdownDelay, &c.MockRuntime.ShutdownDelay)
	set(o.PodGCTimeout, &c.Termination.PodGCTimeout)
	if o.Reconcilers != nil {
		c.Reconcilers.Enabled = o.Reconcilers
	}
	if o.NodeRuntime != "" {
		c.NodeRuntime = o.NodeRuntime
	}
	if o.PodCIDR != nil {
		c.IPAM.Pools = o.PodCIDR
	}
	return c
}

// WhatIfSettings implements httpapi.WhatIfRunner: herd serve's settings
// with the overrides, each checked as herd serve checks its flag.
func (a *APIRunner) WhatIfSettings(o httpapi.WhatIfSettings, p *field.Path) (httpapi.WhatIfSettings, field.ErrorList) {
	c := a.settings(o)
	var errs field.ErrorList
	for _, d := range []struct {
		name   string
		v      *metav1.Duration
		zeroOK bool
	}{
		{name: "nodeMonitorGracePeriod", v: o.NodeMonitorGracePeriod},
		{name: "nodeMonitorPeriod", v: o.NodeMonitorPeriod},
		{name: "nodeStartupGracePeriod", v: o.NodeStartupGracePeriod},
		{name: "pressureTransitionPeriod", v: o.PressureTransitionPeriod, zeroOK: true},
		{name: "schedulerResyncPeriod", v: o.SchedulerResyncPeriod},
		{name: "mockShutdownDelay", v: o.MockShutdownDelay, zeroOK: true},
		{name: "podGCTimeout", v: o.PodGCTimeout},
	} {
		if d.v == nil {
			continue
		}
		if d.v.Duration < 0 || d.v.Duration == 0 && !d.zeroOK {
			errs = append(errs, field.Invalid(p.Child(d.name), d.v.Duration.String(), "want a positive duration"))
		}
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
	d := func(v time.Duration) *metav1.Duration { return &metav1.Duration{Duration: v} }
	return httpapi.WhatIfSettings{
		NodeMonitorGracePeriod:   d(c.Health.GracePeriod),
		NodeMonitorPeriod:        d(c.Health.MonitorPeriod),
		NodeStartupGracePeriod:   d(c.Health.StartupGracePeriod),
		PressureTransitionPeriod: d(c.Thresholds.TransitionPeriod),
		SchedulerResyncPeriod:    d(c.Scheduler.ResyncPeriod),
		MockShutdownDelay:        d(c.MockRuntime.ShutdownDelay),
		PodGCTimeout:             d(c.Termination.PodGCTimeout),
		Reconcilers:              c.Reconcilers.Enabled,
		NodeRuntime:              c.NodeRuntime,
		PodCIDR:                  c.IPAM.Pools,
	}, errs
}

// RunWhatIf implements httpapi.WhatIfRunner: the question run on herd
// serve's log, which it only reads.
func (a *APIRunner) RunWhatIf(ctx context.Context, q httpapi.WhatIfQuestion) (any, error) {
	cfg := Config{Since: q.Since, Until: q.Until, Step: q.Step, Serve: a.settings(q.Settings)}
	for _, n := range q.NodeFailures {
		cfg.Failed = append(cfg.Failed, NodeFailure{Node: n.Node, At: n.At})
	}
	for _, n := range q.Drains {
		cfg.Drains = append(cfg.Drains, Drain{Node: n.Node, At: n.At})
	}
	rep, err := Run(ctx, a.log, cfg)
	var thinned *ThinnedError
	if errors.As(err, &thinned) {
		return nil, httpapi.WhatIfBadInput(field.ErrorList{field.Invalid(field.NewPath("spec", "since"), q.Since.UTC().Format(time.RFC3339), err.Error())})
	}
	if err != nil {
		return nil, err
	}
	return rep, nil
}
