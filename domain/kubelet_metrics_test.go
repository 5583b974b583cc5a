package domain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// kubeletMetrics is a summary with every figure present: 2 GiB of 8 free,
// a quarter of the root filesystem's space and inodes used.
func kubeletMetrics() *KubeletMetrics {
	return &KubeletMetrics{
		CPUUsageNanoCores: ptr[uint64](250_000_000), CPUUsageCoreNanoSeconds: ptr[uint64](9_000_000_000_000),
		MemoryAvailableBytes: ptr[uint64](2 << 30), MemoryWorkingSetBytes: ptr[uint64](6 << 30),
		NodeFSAvailableBytes: ptr[uint64](75 << 30), NodeFSCapacityBytes: ptr[uint64](100 << 30),
		NodeFSInodesFree: ptr[uint64](750_000), NodeFSInodes: ptr[uint64](1_000_000),
		ImageFSAvailableBytes: ptr[uint64](75 << 30), ImageFSCapacityBytes: ptr[uint64](100 << 30),
		ImageFSInodesFree: ptr[uint64](750_000), ImageFSInodes: ptr[uint64](1_000_000),
		RlimitMaxPID: ptr[int64](4_194_304), RlimitCurProc: ptr[int64](612),
	}
}

func TestHeartbeatKeepsKubeletMetrics(t *testing.T) {
	n := registered("k8s-01")
	km := kubeletMetrics()
	reported := []ReportedCondition{{Type: ConditionReady, Status: ConditionTrue, Reason: "KubeletReady"}}
	events, err := DecideNode(n, RecordHeartbeat{Kubelet: km, Reported: reported}, at(10))
	if err != nil {
		t.Fatal(err)
	}
	*km.MemoryAvailableBytes = 0 // the command's figures are not shared with the event
	got := fold(n, events...)
	if diff := cmp.Diff(kubeletMetrics(), got.KubeletMetrics); diff != "" {
		t.Errorf("node's kubelet metrics (-want +got):\n%s", diff)
	}
	if got.Metrics != nil {
		t.Errorf("agent metrics %+v, want none", got.Metrics)
	}

	// A heartbeat without figures (a summary that did not decode) keeps
	// the last ones.
	events, err = DecideNode(got, RecordHeartbeat{Reported: reported}, at(20))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(kubeletMetrics(), fold(got, events...).KubeletMetrics); diff != "" {
		t.Errorf("after a heartbeat without figures (-want +got):\n%s", diff)
	}
}

func TestHeartbeatRejectsNegativePIDFigures(t *testing.T) {
	km := kubeletMetrics()
	km.RlimitCurProc = ptr[int64](-1)
	_, err := DecideNode(registered("k8s-01"), RecordHeartbeat{Kubelet: km}, at(10))
	want := []FieldError{{Field: "kubelet.rlimitCurProc", Value: "-1", Reason: "must not be negative"}}
	if diff := cmp.Diff(want, fieldErrors(t, err)); diff != "" {
		t.Errorf("field errors (-want +got):\n%s", diff)
	}
}
