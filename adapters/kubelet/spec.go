package kubelet

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"herd/domain"
)

// specEvery is how many slow polls pass between reads of /spec: a
// machine's cores, memory and identity change with a reboot, which also
// restarts the kubelet, and herd reads /spec again then anyway.
const specEvery = 10

// machineSpec is what herd takes from a kubelet's /spec: cAdvisor's
// MachineInfo, which is what the kubelet itself sets its node's CPU and
// memory capacity and System Info from.
type machineSpec struct {
	NumCores       int64  `json:"num_cores"`
	MemoryCapacity uint64 `json:"memory_capacity"`
	MachineID      string `json:"machine_id"`
	SystemUUID     string `json:"system_uuid"`
	BootID         string `json:"boot_id"`
}

// decodeSpec reads a /spec body. Every field may be missing (an older
// cAdvisor, a machine without /etc/machine-id); a body that is not a JSON
// object, or one with none of them, is an error.
func decodeSpec(body []byte) (machineSpec, error) {
	var s machineSpec
	if err := json.Unmarshal(body, &s); err != nil {
		return machineSpec{}, fmt.Errorf("decode /spec: %w", err)
	}
	if s == (machineSpec{}) {
		return machineSpec{}, fmt.Errorf("decode /spec: no num_cores, memory_capacity, machine_id, system_uuid or boot_id")
	}
	if s.NumCores < 0 {
		return machineSpec{}, fmt.Errorf("decode /spec: num_cores %d is negative", s.NumCores)
	}
	return s, nil
}

// capacity is the machine's CPU (in millicores, herd's base unit) and
// memory, those it knows.
func (s machineSpec) capacity() domain.ResourceList {
	out := domain.ResourceList{}
	if s.NumCores > 0 {
		out["cpu"] = s.NumCores * 1000
	}
	if s.MemoryCapacity > 0 {
		out["memory"] = clampInt64(s.MemoryCapacity)
	}
	return out
}

// observation is the ObserveMachine for a node whose kubelet gave the
// resources in given itself: the spec's figures for the rest, with what
// the kubelet leaves pods of them by settings.
func (s machineSpec) observation(given domain.ResourceList, set settings) domain.ObserveMachine {
	capacity := domain.ResourceList{}
	for name, v := range s.capacity() {
		if _, ok := given[name]; !ok {
			capacity[name] = v
		}
	}
	obs := domain.ObserveMachine{MachineID: s.MachineID, SystemUUID: s.SystemUUID, BootID: s.BootID}
	if len(capacity) > 0 {
		obs.Capacity = capacity
		obs.Allocatable = set.allocatable(capacity)
	}
	return obs
}

// decodeSpec takes a /spec body into the poller.
func (p *poller) decodeSpec(body []byte) error {
	s, err := decodeSpec(body)
	if err == nil {
		p.spec = &s
	}
	return err
}

// readSpec reads /spec now, outside the slow poll's turn. An answer that
// fails keeps the machine herd knew, and is logged as the slow poll's
// failures are.
func (p *poller) readSpec(ctx context.Context) {
	_, f := p.scrape(ctx, endpointSpec, p.decodeSpec)
	if f == nil {
		p.specDue = false
	}
	p.note(endpointSpec, f)
}

// deliverMachine tells herd the machine of the last /spec, for what the
// kubelet gave no figure of, and the kubelet's version of the last
// /metrics, if the node is registered and they are not what herd was told
// last.
func (p *poller) deliverMachine(ctx context.Context) {
	if !p.registered || (p.spec == nil && p.version == "") {
		return
	}
	var obs domain.ObserveMachine
	if p.spec != nil {
		obs = p.spec.observation(p.given, p.settings)
	}
	obs.AgentVersion = p.version
	if p.observed != nil && reflect.DeepEqual(obs, *p.observed) {
		return
	}
	if err := p.sink.ObserveMachine(ctx, p.target.Name, obs); err != nil {
		p.complain(ctx, "cannot record the kubelet's machine", err)
		return
	}
	p.observed = &obs
}
