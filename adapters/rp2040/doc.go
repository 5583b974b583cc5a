// Package rp2040 is herd's edge for Raspberry Pi Pico (RP2040) boards
// running the k3s-pico-node firmware. The firmware is the contract; herd
// accepts it exactly as it is:
//
//   - On start it POSTs a full Node to /api/v1/nodes (Content-Type and
//     Accept application/json, User-Agent k3s-pico-node/1.0, no
//     credentials) with the labels kubernetes.io/hostname,
//     kubernetes.io/arch=arm, kubernetes.io/os=linux, their beta.
//     twins, and node.kubernetes.io/instance-type=rp2040-pico; five
//     conditions (Ready True, MemoryPressure, DiskPressure, PIDPressure
//     and NetworkUnavailable False); an InternalIP and a Hostname
//     address; capacity and allocatable cpu 1, memory 256Ki, pods 0;
//     nodeInfo with machine, system and boot IDs, osImage "Pico SDK",
//     containerRuntimeVersion mock://1.0.0, kubelet and kube-proxy
//     v1.34.0; and daemonEndpoints.kubeletEndpoint.Port 10250.
//   - When that POST fails for any reason, 409 included, it PATCHes
//     /api/v1/nodes/{name}/status (application/strategic-merge-patch+json)
//     with {"status":{...}} holding the same status, and then sends that
//     PATCH every 10 s.
//   - Every condition's lastHeartbeatTime and lastTransitionTime is its own
//     "now", which comes from HTTP Date headers: 1970-01-01T00:00:00Z until
//     it has seen one.
//   - Every 30 s it GETs the ConfigMap default/pico-config.
//   - It serves plain HTTP on port 10250: /healthz answers "ok", /metrics
//     an empty 200, anything else 404.
//
// What an RP2040 board is — its instance type and its capacity — is said
// once, in this package (Capacity, CheckNode): the device listener
// registers nothing else.
//
// herd's side of the contract lives in adapters/httpapi (the Node and
// ConfigMap API, the device listener) and reconcilers/kubeletprobe;
// picosim is a simulated Pico that sends the firmware's requests byte for
// byte, for tests and demos.
package rp2040
