package domain

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
)

// KubeletTargetsCommand is a command on the set of kubelet targets:
// SetKubeletTarget, RemoveKubeletTarget or SyncConfiguredKubeletTargets.
type KubeletTargetsCommand interface {
	decideTargets(ts KubeletTargets, now time.Time) ([]Event, error)
}

// DecideKubeletTargets returns the events cmd causes on the set of
// targets at time now, or a typed error; no events and no error means
// there is nothing to change.
func DecideKubeletTargets(ts KubeletTargets, cmd KubeletTargetsCommand, now time.Time) ([]Event, error) {
	if cmd == nil {
		return nil, fmt.Errorf("nil kubelet target command: %w", ErrInvalid)
	}
	return cmd.decideTargets(ts, now.UTC())
}

// SetKubeletTarget adds a target through the API, or changes one the API
// added. It records KubeletTargetSet, or nothing when the target is
// already exactly so. A target from herd's configuration cannot be changed
// this way (ErrConflict): the next start would undo it.
type SetKubeletTarget struct {
	Target KubeletTarget
	// ResourceVersion, when not 0, must be the target's current one:
	// Kubernetes' optimistic concurrency for a read-modify-write. It is
	// the command's own, not a Precondition's, because it is the version
	// of one target inside the set this command decides on (which has no
	// version of its own), and a target not in the set (version 0) must
	// refuse any version too.
	ResourceVersion int64
}

func (c SetKubeletTarget) decideTargets(ts KubeletTargets, now time.Time) ([]Event, error) {
	t := c.Target
	t.Source, t.ResourceVersion = SourceAPI, 0
	if err := ValidateKubeletTarget(t); err != nil {
		return nil, err
	}
	cur, ok := ts.Targets[t.Name]
	if ok && cur.Source == SourceConfig {
		return nil, fmt.Errorf("kubelet target %q comes from herd's configuration (--kubelet or --kubelet-config); change it there: %w", t.Name, ErrConflict)
	}
	if c.ResourceVersion != 0 && c.ResourceVersion != cur.ResourceVersion {
		return nil, fmt.Errorf("kubelet target %q is at resourceVersion %d, not %d: %w", t.Name, cur.ResourceVersion, c.ResourceVersion, ErrConflict)
	}
	if ok && cur.sameSpec(t) {
		return nil, nil
	}
	return []Event{KubeletTargetSet{Target: t, At: now}}, nil
}

// RemoveKubeletTarget removes a target the API added. An unknown name is
// ErrNotFound; a target from herd's configuration is ErrConflict.
type RemoveKubeletTarget struct {
	Name string
}

func (c RemoveKubeletTarget) decideTargets(ts KubeletTargets, now time.Time) ([]Event, error) {
	cur, ok := ts.Targets[c.Name]
	if !ok {
		return nil, fmt.Errorf("kubelet target %q: %w", c.Name, ErrNotFound)
	}
	if cur.Source == SourceConfig {
		return nil, fmt.Errorf("kubelet target %q comes from herd's configuration (--kubelet or --kubelet-config); remove it there: %w", c.Name, ErrConflict)
	}
	return []Event{KubeletTargetRemoved{Name: c.Name, Source: SourceAPI, At: now}}, nil
}

// SyncConfiguredKubeletTargets makes the configured targets in the log
// what herd's configuration says at start-up: new and changed ones are
// set, ones no longer configured are removed. A configured target takes
// over an API target of the same name. Targets the API added are left
// alone otherwise.
type SyncConfiguredKubeletTargets struct {
	Targets []KubeletTarget
}

func (c SyncConfiguredKubeletTargets) decideTargets(ts KubeletTargets, now time.Time) ([]Event, error) {
	var errs []FieldError
	want := make(map[string]KubeletTarget, len(c.Targets))
	for i, t := range c.Targets {
		t.Source, t.ResourceVersion = SourceConfig, 0
		if _, dup := want[t.Name]; dup {
			errs = append(errs, FieldError{Field: fmt.Sprintf("targets[%d].name", i), Value: t.Name, Reason: "Duplicate value"})
			continue
		}
		if err := ValidateKubeletTarget(t); err != nil {
			for _, f := range fieldErrorsOf(err) {
				f.Field = fmt.Sprintf("targets[%d].%s", i, f.Field)
				errs = append(errs, f)
			}
			continue
		}
		want[t.Name] = t
	}
	if err := invalid("KubeletTargets", "configuration", errs); err != nil {
		return nil, err
	}
	var evs []Event
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if cur, ok := ts.Targets[name]; !ok || !cur.sameSpec(want[name]) {
			evs = append(evs, KubeletTargetSet{Target: want[name], At: now})
		}
	}
	for _, name := range slices.Sorted(maps.Keys(ts.Targets)) {
		if _, ok := want[name]; !ok && ts.Targets[name].Source == SourceConfig {
			evs = append(evs, KubeletTargetRemoved{Name: name, Source: SourceConfig, At: now})
		}
	}
	return evs, nil
}

// fieldErrorsOf returns the fields of an *InvalidError, or one field
// holding any other error's message.
func fieldErrorsOf(err error) []FieldError {
	if inv, ok := errors.AsType[*InvalidError](err); ok {
		return inv.Fields
	}
	return []FieldError{{Field: "spec", Reason: err.Error()}}
}
