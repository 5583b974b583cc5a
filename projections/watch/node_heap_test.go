package watch_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"herd/domain"
	"herd/projections"
	"herd/projections/watch"
)

// fresh is s in memory of its own, as a request's decoder hands each
// string to herd: a literal would be one copy for the whole test and hide
// what herd keeps of strings a fleet repeats.
func fresh(s string) string { return strings.Clone(s) }

// kubeletRegistration is node i as a kubelet registers it: its usual
// labels, addresses, quantities and machine information.
func kubeletRegistration(i int) domain.Registration {
	name := fmt.Sprintf("kubelet-%06d", i)
	return domain.Registration{
		Name: name, UID: fmt.Sprintf("uid-%06d-4b6f-9c1e-%012d", i, i), Kind: domain.KindKubelet,
		Labels: map[string]string{
			fresh("beta.kubernetes.io/arch"): fresh("amd64"), fresh("beta.kubernetes.io/os"): fresh("linux"),
			fresh("kubernetes.io/arch"): fresh("amd64"), fresh("kubernetes.io/os"): fresh("linux"),
			fresh("kubernetes.io/hostname"): fresh(name), fresh("node.kubernetes.io/instance-type"): fresh("m5.large"),
			fresh("topology.kubernetes.io/zone"): fresh("eu-west-1" + string(rune('a'+i%3))),
		},
		Annotations: map[string]string{fresh("node.alpha.kubernetes.io/ttl"): fresh("0"), fresh("volumes.kubernetes.io/controller-managed-attach-detach"): fresh("true")},
		Addresses: []domain.Address{{Type: fresh("InternalIP"), Address: fmt.Sprintf("10.%d.%d.%d", i>>16, (i>>8)&255, i&255)},
			{Type: fresh("Hostname"), Address: fresh(name)}},
		Capacity:    domain.ResourceList{fresh("cpu"): 2000, fresh("memory"): 8 << 30, fresh("ephemeral-storage"): 100 << 30, fresh("pods"): 110},
		Allocatable: domain.ResourceList{fresh("cpu"): 1900, fresh("memory"): 7 << 30, fresh("ephemeral-storage"): 90 << 30, fresh("pods"): 110},
		Info: domain.NodeInfo{
			AgentVersion: fresh("v1.31.2"), KernelVersion: fresh("6.8.0-1019-aws"), OSImage: fresh("Ubuntu 24.04.1 LTS"),
			OperatingSystem: fresh("linux"), Architecture: fresh("amd64"), ContainerRuntimeVersion: fresh("containerd://1.7.22"),
			MachineID: fmt.Sprintf("%032x", i), SystemUUID: fmt.Sprintf("ec2%029x", i), BootID: fmt.Sprintf("b00%029x", i),
		},
		KubeletPort: 10250,
	}
}

// kubeletStatus is a kubelet's status report with its usual conditions,
// each string decoded anew.
func kubeletStatus() domain.RecordHeartbeat {
	c := func(t domain.ConditionType, st domain.ConditionStatus, reason, msg string) domain.ReportedCondition {
		return domain.ReportedCondition{Type: domain.ConditionType(fresh(string(t))), Status: domain.ConditionStatus(fresh(string(st))), Reason: fresh(reason), Message: fresh(msg)}
	}
	return domain.RecordHeartbeat{Reported: []domain.ReportedCondition{
		c(domain.ConditionMemoryPressure, domain.ConditionFalse, "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
		c(domain.ConditionDiskPressure, domain.ConditionFalse, "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
		c(domain.ConditionPIDPressure, domain.ConditionFalse, "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
		c(domain.ConditionReady, domain.ConditionTrue, "KubeletReady", "kubelet is posting ready status"),
	}}
}

// nodeLease is the content of node i's Lease, renewed at t.
func nodeLease(name string, t time.Time) domain.LeaseContent {
	d := int32(40)
	return domain.LeaseContent{
		Owners: []domain.OwnerReference{{APIVersion: fresh("v1"), Kind: fresh("Node"), Name: fresh(name), UID: fresh("uid-" + name)}},
		Spec:   domain.LeaseSpec{HolderIdentity: fresh(name), LeaseDurationSeconds: &d, RenewTime: &t},
	}
}

// TestHeapOfKubeletNodes measures what a kubelet node and its Lease cost
// herd's heap at rest: HERD_NODE_HEAP=N registers N kubelet-style nodes
// and their Leases through the unit of work, as the API does (the hub
// watching both, as herd serve's does), reports
// their status twice, renews every Lease three times, lets the hub read it
// all, and reports the live heap bytes and heap objects a node after a
// collection; HERD_NODE_HEAP_PROFILE names a file for the heap profile at
// that point. Without HERD_NODE_HEAP it measures nothing.
func TestHeapOfKubeletNodes(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("HERD_NODE_HEAP"))
	if n <= 0 {
		t.Skip("HERD_NODE_HEAP is not set to a number of nodes")
	}
	f := newFixture(t, watch.Config{})
	if err := watch.Register(f.hub, leaseKind(projections.NewLeaseView(f.log))); err != nil {
		t.Fatal(err)
	}
	f.start(t)
	runtime.GC()
	before := heap()
	nodes, leases := f.w.NodeCommands(), f.w.LeaseCommands()
	ctx := context.Background()
	const workers = 16
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Go(func() {
			for i := w; i < n; i += workers {
				reg := kubeletRegistration(i)
				key := domain.Key{Name: reg.Name}
				lease := domain.Key{Namespace: domain.NodeLeaseNamespace, Name: reg.Name}
				steps := []func() error{
					func() error {
						_, err := nodes.Execute(ctx, key, domain.RegisterKubeletNode{Registration: reg})
						return err
					},
					func() error {
						_, err := leases.Execute(ctx, lease, domain.CreateLease{Namespace: domain.NodeLeaseNamespace, Name: reg.Name,
							UID: fmt.Sprintf("lease-%06d", i), Content: nodeLease(reg.Name, t0)})
						return err
					},
				}
				for r := range 3 {
					steps = append(steps, func() error {
						_, err := leases.Execute(ctx, lease, domain.UpdateLease{Content: nodeLease(reg.Name, t0.Add(time.Duration(r+1)*time.Minute))})
						return err
					})
					if r != 1 {
						steps = append(steps, func() error {
							_, err := nodes.Execute(ctx, key, kubeletStatus())
							return err
						})
					}
				}
				for _, s := range steps {
					if err := s(); err != nil {
						errs <- fmt.Errorf("node %s: %w", reg.Name, err)
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	mustWatch(t, f.hub, watch.Request{Resource: "nodes", From: f.head(t)}) // the hub has read it all
	after := heap()
	t.Logf("%d kubelet nodes with their Leases: %d heap bytes a node, %d heap objects a node (live heap %d MB)",
		n, (after.bytes-before.bytes)/uint64(n), (after.objects-before.objects)/uint64(n), after.bytes>>20)
	if path := os.Getenv("HERD_NODE_HEAP_PROFILE"); path != "" {
		out, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := pprof.Lookup("heap").WriteTo(out, 0); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
	}
	runtime.KeepAlive(f)
}

type heapFigures struct{ bytes, objects uint64 }

// heap is the live heap after a full collection.
func heap() heapFigures {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return heapFigures{m.HeapAlloc, m.HeapObjects}
}

// leaseKind shows Leases as the API's kind does: keyed "namespace/name",
// with their name and namespace as fields.
func leaseKind(view *projections.LeaseView) *watch.Kind[domain.Lease] {
	return &watch.Kind[domain.Lease]{
		Resource: "leases",
		Prefix:   domain.LeaseAggregate.Prefix(),
		Fold:     projections.FoldLease,
		Meta: func(l domain.Lease) (watch.Meta, bool) {
			key := domain.Key{Namespace: l.Namespace, Name: l.Name}
			return watch.Meta{Key: key.String(), Labels: l.Labels, Fields: keyFields(key)}, l.Exists()
		},
		Encode: func(l domain.Lease, rv int64) ([]byte, error) {
			l.ResourceVersion = rv
			return json.Marshal(l)
		},
		Rows: func(ctx context.Context, after string, limit int) ([]watch.Row[domain.Lease], int64, error) {
			leases, head, err := view.Rows(ctx, after, limit)
			rows := make([]watch.Row[domain.Lease], len(leases))
			for i, l := range leases {
				rows[i] = watch.Row[domain.Lease]{Key: l.Key(), Stream: domain.LeaseStream(l.Namespace, l.Name), ResourceVersion: l.ResourceVersion, State: l}
			}
			return rows, head, err
		},
	}
}

// keyFields are a namespaced object's metadata fields, as a value.
type keyFields domain.Key

func (f keyFields) Has(field string) bool {
	return field == "metadata.name" || field == "metadata.namespace"
}

func (f keyFields) Get(field string) string {
	switch field {
	case "metadata.name":
		return f.Name
	case "metadata.namespace":
		return f.Namespace
	}
	return ""
}
