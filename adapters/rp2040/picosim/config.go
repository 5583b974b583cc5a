package picosim

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
)

// PollConfig reads default/pico-config as the firmware does every 30 s. It
// returns the ConfigMap's data and the status code; on anything but 200
// the board keeps the configuration it had.
func (p *Pico) PollConfig() (map[string]string, int, error) {
	x := p.send("GET", ConfigMapPath, "", "")
	if err := x.failure(); err != nil {
		return p.Config(), x.Status, err
	}
	var cm struct {
		Data map[string]string `json:"data"`
	}
	if err := json.Unmarshal(x.Body, &cm); err != nil {
		return p.Config(), x.Status, fmt.Errorf("the answer is not a ConfigMap: %w", err)
	}
	p.mu.Lock()
	p.config = maps.Clone(cm.Data)
	p.mu.Unlock()
	return maps.Clone(cm.Data), http.StatusOK, nil
}

// Config is the configuration the board read last; nil before it read
// any.
func (p *Pico) Config() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return maps.Clone(p.config)
}
