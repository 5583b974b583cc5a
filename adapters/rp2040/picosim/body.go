package picosim

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The firmware's constants.
const (
	// UserAgent is the firmware's User-Agent header.
	UserAgent = "k3s-pico-node/1.0"
	// KubeletPort is the port the firmware serves and advertises.
	KubeletPort = 10250
	// ReportEvery is how often the firmware PATCHes its status.
	ReportEvery = 10 * time.Second
	// PollEvery is how often the firmware reads its ConfigMap.
	PollEvery = 30 * time.Second
	// ConfigMapPath is the ConfigMap the firmware reads.
	ConfigMapPath = "/api/v1/namespaces/default/configmaps/pico-config"
	// Unsynced is the firmware's time before its clock has seen a Date
	// header.
	Unsynced = "1970-01-01T00:00:00Z"
)

// str is s as a JSON string.
func str(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// nodeBody is the Node the firmware POSTs, laid out as the firmware
// writes it.
func (p *Pico) nodeBody(now string) string {
	name := str(p.cfg.Name)
	return `{"apiVersion":"v1","kind":"Node","metadata":{"name":` + name + `,"labels":{` +
		`"kubernetes.io/hostname":` + name + `,` +
		`"kubernetes.io/arch":"arm",` +
		`"kubernetes.io/os":"linux",` +
		`"beta.kubernetes.io/arch":"arm",` +
		`"beta.kubernetes.io/os":"linux",` +
		`"node.kubernetes.io/instance-type":"rp2040-pico"}},` +
		`"spec":{},` +
		`"status":` + p.statusBody(now) + `}`
}

// patchBody is the status PATCH the firmware sends every 10 s.
func (p *Pico) patchBody(now string) string {
	return `{"status":` + p.statusBody(now) + `}`
}

// statusBody is the firmware's NodeStatus: every condition stamped with
// the board's own now.
func (p *Pico) statusBody(now string) string {
	t := str(now)
	cond := func(typ, status, reason, msg string) string {
		return fmt.Sprintf(`{"type":%s,"status":%s,"lastHeartbeatTime":%s,"lastTransitionTime":%s,"reason":%s,"message":%s}`,
			str(typ), str(status), t, t, str(reason), str(msg))
	}
	conds := []string{
		cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
		cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
		cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
		cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
		cond("NetworkUnavailable", "False", "RouteCreated", "RouteController created a route"),
	}
	resources := `{"cpu":"1","memory":"256Ki","pods":"0"}`
	return `{"conditions":[` + strings.Join(conds, ",") + `],` +
		`"addresses":[{"type":"InternalIP","address":` + str(p.cfg.InternalIP) + `},{"type":"Hostname","address":` + str(p.cfg.Name) + `}],` +
		`"capacity":` + resources + `,` +
		`"allocatable":` + resources + `,` +
		`"daemonEndpoints":{"kubeletEndpoint":{"Port":` + fmt.Sprint(p.kubeletPort()) + `}},` +
		`"nodeInfo":{` +
		`"machineID":` + str(p.cfg.MachineID) + `,` +
		`"systemUUID":` + str(p.cfg.SystemUUID) + `,` +
		`"bootID":` + str(p.bootID()) + `,` +
		`"kernelVersion":"2.1.0",` +
		`"osImage":"Pico SDK",` +
		`"containerRuntimeVersion":"mock://1.0.0",` +
		`"kubeletVersion":"v1.34.0",` +
		`"kubeProxyVersion":"v1.34.0",` +
		`"operatingSystem":"linux",` +
		`"architecture":"arm"}}`
}
