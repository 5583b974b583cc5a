package whatif

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"herd/domain"
	"herd/events"
	"herd/projections"
)

// Durations is a time per name, in JSON as Go durations ("1m30s"), as
// herd's flags and the CLI's report write them.
type Durations map[string]time.Duration

// MarshalJSON writes each time as a Go duration.
func (d Durations) MarshalJSON() ([]byte, error) {
	out := make(map[string]string, len(d))
	for k, v := range d {
		out[k] = v.String()
	}
	return json.Marshal(out)
}

// UnmarshalJSON reads what MarshalJSON writes.
func (d *Durations) UnmarshalJSON(b []byte) error {
	var in map[string]string
	if err := json.Unmarshal(b, &in); err != nil {
		return err
	}
	out := make(Durations, len(in))
	for k, v := range in {
		t, err := time.ParseDuration(v)
		if err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		out[k] = t
	}
	*d = out
	return nil
}

// WorkloadDifference is a workload (a Deployment, or a ReplicaSet no
// Deployment owns) that spent another time below its desired
// availability: fewer available pods than it asks for.
type WorkloadDifference struct {
	// Workload is "deployment default/api" or "replicaset default/cache".
	Workload string `json:"workload"`
	// Actual and WhatIf are in JSON as Go durations ("1m30s").
	Actual time.Duration `json:"-"`
	WhatIf time.Duration `json:"-"`
	// Causes is why the simulation's workload first went below, when it
	// did: the status that said so and its chain of causes.
	Causes []Cause `json:"causes"`
}

// workloadJSON is a WorkloadDifference as the API gives it: the times
// as Go durations, as herd's flags and the CLI's report write them.
type workloadJSON struct {
	Workload string  `json:"workload"`
	Actual   string  `json:"actual"`
	WhatIf   string  `json:"whatIf"`
	Causes   []Cause `json:"causes"`
}

// MarshalJSON writes the times as durations ("1m30s").
func (d WorkloadDifference) MarshalJSON() ([]byte, error) {
	return json.Marshal(workloadJSON{Workload: d.Workload, Actual: d.Actual.String(), WhatIf: d.WhatIf.String(), Causes: d.Causes})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (d *WorkloadDifference) UnmarshalJSON(b []byte) error {
	var j workloadJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	actual, err := time.ParseDuration(j.Actual)
	if err != nil {
		return fmt.Errorf("actual: %w", err)
	}
	whatIf, err := time.ParseDuration(j.WhatIf)
	if err != nil {
		return fmt.Errorf("whatIf: %w", err)
	}
	*d = WorkloadDifference{Workload: j.Workload, Actual: actual, WhatIf: whatIf, Causes: j.Causes}
	return nil
}

// below is how long each workload of streams spent below its desired
// availability between since and until, read from log (whose streams
// hold the workloads from their first event), up to position upTo (0:
// all); first is, per workload, its first status record in the window
// that found it below.
func below(ctx context.Context, log events.LogReader, streams map[string]bool, since, until time.Time, upTo int64) (map[string]time.Duration, map[string]events.Record, error) {
	out := map[string]time.Duration{}
	first := map[string]events.Record{}
	for _, stream := range slices.Sorted(mapsKeys(streams)) {
		all, err := log.ReadStream(ctx, stream, 0)
		if err != nil {
			return nil, nil, err
		}
		short, fold := workloadOf(stream)
		if fold == nil {
			continue
		}
		var (
			was   bool
			from  = since
			total time.Duration
			owned bool
		)
		for _, r := range all {
			if (upTo > 0 && r.Position > upTo) || r.RecordedAt.After(until) {
				break
			}
			now, isBelow, isOwned, err := fold(r)
			if err != nil {
				return nil, nil, err
			}
			owned = isOwned
			if r.RecordedAt.Before(since) {
				was = isBelow
				continue
			}
			if was {
				total += now.Sub(from)
			}
			if isBelow && !was {
				if _, ok := first[short]; !ok {
					first[short] = r
				}
			}
			was, from = isBelow, now
		}
		if was {
			total += until.Sub(from)
		}
		if owned {
			continue // its Deployment speaks for it
		}
		out[short] = total
	}
	return out, first, nil
}

// workloadOf names the workload of stream and gives a fold that says,
// event by event, whether it is below its desired availability and
// whether a Deployment owns it.
func workloadOf(stream string) (short string, fold func(events.Record) (time.Time, bool, bool, error)) {
	switch {
	case strings.HasPrefix(stream, "replicaset/"):
		var rs domain.ReplicaSet
		key := strings.TrimPrefix(stream, "replicaset/")
		return "replicaset " + key, func(r events.Record) (time.Time, bool, bool, error) {
			var err error
			if rs, err = projections.FoldReplicaSet(rs, r); err != nil {
				return r.RecordedAt, false, false, err
			}
			owned := slices.ContainsFunc(rs.Owners, func(o domain.OwnerReference) bool { return o.Kind == "Deployment" })
			return r.RecordedAt, rs.Exists() && rs.Status.AvailableReplicas < rs.Spec.Replicas, owned, nil
		}
	case strings.HasPrefix(stream, "deployment/"):
		var d domain.Deployment
		key := strings.TrimPrefix(stream, "deployment/")
		return "deployment " + key, func(r events.Record) (time.Time, bool, bool, error) {
			var err error
			if d, err = projections.FoldDeployment(d, r); err != nil {
				return r.RecordedAt, false, false, err
			}
			return r.RecordedAt, d.Version > 0 && !d.Deleted && d.Status.AvailableReplicas < d.Spec.Replicas, false, nil
		}
	}
	return "", nil
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
