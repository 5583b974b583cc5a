package httpapi

import (
	"strings"

	corev1 "k8s.io/api/core/v1"

	"herd/adapters/conversions"
	"herd/adapters/rp2040"
	"herd/domain"
)

// labelInstanceType is Kubernetes' well-known instance type label. The
// k3s-pico-node firmware sets it to "rp2040-pico".
const labelInstanceType = "node.kubernetes.io/instance-type"

// postedKind is the kind of a node created through the Kubernetes API when
// it does not name one with the herd.dev/kind label: rp2040 for a board
// whose instance type says RP2040 (the Pico firmware's "rp2040-pico"),
// linux otherwise.
func postedKind(in corev1.Node) domain.NodeKind {
	if strings.HasPrefix(in.Labels[labelInstanceType], rp2040.InstanceTypePrefix) {
		return domain.KindRP2040
	}
	return domain.KindLinux
}

// reportedSystem is what a status report says about the machine besides
// its conditions: its system info (a new boot ID is a reboot), its
// addresses and its kubelet's port (herd probes the one reported last).
// nil when it says nothing of these.
func reportedSystem(st corev1.NodeStatus) *domain.ReportedSystem {
	info := conversions.NodeInfoFromAPI(st.NodeInfo)
	addrs := conversions.AddressesFromAPI(st.Addresses)
	port := st.DaemonEndpoints.KubeletEndpoint.Port
	if info == (domain.NodeInfo{}) && len(addrs) == 0 && port == 0 {
		return nil
	}
	return &domain.ReportedSystem{Info: info, Addresses: addrs, KubeletPort: port}
}
