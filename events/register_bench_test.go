package events_test

import (
	"context"
	"fmt"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/uuid"

	"herd/events"
)

// registration is the events one kubelet's registration appends, as a
// 10,000-node run of `herd loadgen --style kubelet --lease` wrote them:
// the Node's create (seven events on the node's stream, one write) and
// the Lease's (one event on the lease's stream).
var registration = struct {
	node  []events.NewEvent
	lease []events.NewEvent
}{
	node: []events.NewEvent{
		{Type: "NodeRegistered", Payload: []byte(`{"name":"loadgen-kubelet-05133","uid":"0b49b720-00f8-4671-b3f0-6e33dbfb5b2b","kind":"linux","labels":{"kubernetes.io/arch":"amd64","kubernetes.io/hostname":"loadgen-kubelet-05133","kubernetes.io/os":"linux"},"addresses":[{"type":"Hostname","address":"loadgen-kubelet-05133"}],"capacity":{"cpu":4000,"memory":17179869184,"pods":110},"allocatable":{"cpu":4000,"memory":17179869184,"pods":110},"info":{"agentVersion":"v1.34.0","kernelVersion":"6.1.0","osImage":"Debian GNU/Linux 12","operatingSystem":"linux","architecture":"amd64","containerRuntimeVersion":"containerd://1.7.0","machineID":"loadgen-kubelet-05133","systemUUID":"loadgen-kubelet-05133","bootID":"loadgen-boot"},"at":"2026-11-29T15:59:09.824571192Z"}`)},
		{Type: "HeartbeatRecorded", Payload: []byte(`{"at":"2026-11-29T15:59:09.824571192Z"}`)},
		{Type: "NodeConditionChanged", Payload: []byte(`{"type":"Ready","status":"True","reason":"KubeletReady","message":"kubelet is posting ready status","at":"2026-11-29T15:59:09.824571192Z"}`)},
		{Type: "NodeConditionChanged", Payload: []byte(`{"type":"MemoryPressure","status":"False","reason":"KubeletHasSufficientMemory","message":"kubelet has sufficient memory available","at":"2026-11-29T15:59:09.824571192Z"}`)},
		{Type: "NodeConditionChanged", Payload: []byte(`{"type":"DiskPressure","status":"False","reason":"KubeletHasNoDiskPressure","message":"kubelet has no disk pressure","at":"2026-11-29T15:59:09.824571192Z"}`)},
		{Type: "NodeConditionChanged", Payload: []byte(`{"type":"PIDPressure","status":"False","reason":"KubeletHasSufficientPID","message":"kubelet has sufficient PID available","at":"2026-11-29T15:59:09.824571192Z"}`)},
		{Type: "NodeBecameReady", Payload: []byte(`{"at":"2026-11-29T15:59:09.824571192Z"}`)},
	},
	lease: []events.NewEvent{
		{Type: "LeaseCreated", Payload: []byte(`{"namespace":"kube-node-lease","name":"loadgen-kubelet-05133","uid":"5205037e-d5ed-4b6c-81a2-3b866880b0bd","owners":[{"apiVersion":"v1","kind":"Node","name":"loadgen-kubelet-05133","uid":"0b49b720-00f8-4671-b3f0-6e33dbfb5b2b"}],"spec":{"holderIdentity":"loadgen-kubelet-05133","leaseDurationSeconds":40,"renewTime":"2026-11-29T15:59:09.847794Z"},"at":"2026-11-29T15:59:09.849838271Z"}`)},
	},
}

// BenchmarkAppendRegistrations appends registrations as the group commit
// does under a registering fleet: groups of 24 nodes, each a seven-event
// append to its node's stream and a one-event append to its lease's, in
// one transaction of prepared appends, on a log that already holds
// 5,000 registered nodes (so that the stream index's inserts land among
// others, as they do). Its variants drop one of the log's indexes on
// their copy of the schema: what each costs a registration (cpu-µs/node
// is the process's CPU per node, fsync's wait excluded; on a shared
// machine it moves more than one index costs).
func BenchmarkAppendRegistrations(b *testing.B) {
	for _, c := range []struct {
		name string
		drop []string
	}{
		{"all", nil},
		{"noActor", []string{"INDEX events_actor"}},
		{"noType", []string{"INDEX events_type"}},
		{"noCausation", []string{"INDEX events_causation"}},
		{"noRecordedAt", []string{"INDEX events_recorded_at"}},
		{"noAudit", []string{"INDEX events_actor", "INDEX events_type", "INDEX events_causation"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			ctx := b.Context()
			s, err := events.Open(ctx, events.Config{Path: filepath.Join(b.TempDir(), "herd.db")}, nil)
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = s.Close() }()
			for _, d := range c.drop {
				if _, err := s.DB().ExecContext(ctx, "DROP "+d); err != nil {
					b.Fatal(err)
				}
			}
			l := s.Log()
			if err := l.(events.AppendsPreparer).PrepareAppends(ctx); err != nil {
				b.Fatal(err)
			}
			at := time.Date(2026, 11, 29, 15, 59, 9, 0, time.UTC)
			next := 0
			group := func(n int) {
				ps := make([]*events.PreparedAppend, 0, 2*n)
				for range n {
					// Names in no order, as 64 clients register them.
					name := uuid.NewString()
					md := events.Metadata{Actor: "system:anonymous", Source: "httpapi", CorrelationID: uuid.NewString()}
					for _, a := range []struct {
						stream string
						evs    []events.NewEvent
					}{{"node/" + name, registration.node}, {"lease/kube-node-lease/" + name, registration.lease}} {
						p, err := events.PrepareAppend(a.stream, 0, md, at, a.evs...)
						if err != nil {
							b.Fatal(err)
						}
						ps = append(ps, p)
					}
					next++
				}
				commitPrepared(ctx, b, l, ps)
			}
			for range 5000 / 25 {
				group(25)
			}
			next = 0
			cpu := cpuTime()
			b.ResetTimer()
			for b.Loop() {
				group(24)
			}
			b.StopTimer()
			b.ReportMetric(float64((cpuTime()-cpu).Microseconds())/float64(next), "cpu-µs/node")
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(next), "µs/node")
		})
	}
}

func commitPrepared(ctx context.Context, b *testing.B, l events.Log, ps []*events.PreparedAppend) {
	tx, err := l.Begin(ctx)
	if err != nil {
		b.Fatal(err)
	}
	_, errs, err := tx.(events.PreparedAppender).AppendPrepared(ctx, ps)
	if err != nil {
		b.Fatal(err)
	}
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}

// cpuTime is the CPU this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		panic(fmt.Sprintf("getrusage: %v", err))
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
