package loadgen

import (
	"context"

	"herd/adapters/rp2040/picosim"
)

// picoClient speaks as RP2040 boards, through the simulated firmware: the
// POST of the Node (and the status PATCH when it exists), then status
// PATCHes, each on a connection of its own with Connection: close, as the
// firmware's small HTTP client sends them. Connections then bounds the
// requests in flight, not the connections opened. The boards serve no
// port-10250 endpoint: herd probes none unless --kubelet-probe-networks
// names loopback. Through herd's device listener every board speaks from
// the one address of the load generator, so herd serve needs a
// --device-rate and --device-burst far above a real board's.
type picoClient struct {
	boards []*picosim.Pico
}

func newPicoClient(cfg Config, names []string) (*picoClient, error) {
	boards := make([]*picosim.Pico, len(names))
	for i, name := range names {
		p, err := picosim.New(picosim.Config{Name: name, Server: cfg.Servers[cfg.server(i)], Timeout: cfg.Timeout, NoHistory: true})
		if err != nil {
			return nil, err
		}
		boards[i] = p
	}
	return &picoClient{boards: boards}, nil
}

// register powers the board on. The firmware's boot cannot be cancelled;
// each request is bounded by --timeout.
func (p *picoClient) register(_ context.Context, i int) outcome {
	res, err := p.boards[i].Boot()
	if res.Registered {
		return outcome{status: res.PostStatus}
	}
	return outcome{status: res.PatchStatus, err: err}
}

func (p *picoClient) heartbeat(_ context.Context, i int) outcome {
	code, err := p.boards[i].Report()
	return outcome{status: code, err: err}
}
