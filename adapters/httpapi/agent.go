package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"

	"herd/adapters/conversions"
	"herd/domain"
)

// registerAgent is how herd's own agents register: the same Node body as a
// Kubernetes POST, but registering a known name again is a restart, not a
// conflict.
func (s *Server) registerAgent(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var in corev1.Node
	if err := decodeJSON(r, &in); err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	if in.Name == "" {
		in.Name = name
	}
	if in.Name != name {
		s.writeError(w, badRequest("metadata.name %q does not match the node %q in the path", in.Name, name), "Node", name)
		return
	}
	if err := conversions.ValidateNode(&in); err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	if err := checkRuntimeLabel(in); err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	if err := s.restrictRegistrationLabels(r, in); err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	reg := conversions.RegistrationFromAPI(in, domain.KindLinux)
	if reg.UID == "" {
		reg.UID = uuid.NewString()
	}
	n, err := s.Nodes.Execute(r.Context(), domain.Key{Name: name}, domain.RegisterNode{Registration: reg})
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	s.writeNode(w, http.StatusOK, n)
}

// restrictRegistrationLabels applies NodeRestriction to an agent's
// registration, judged against the labels the node has now: an agent
// that restarts repeats its labels, and those pass.
func (s *Server) restrictRegistrationLabels(r *http.Request, in corev1.Node) error {
	if u, ok := UserFrom(r.Context()); !ok || u.IsAdmin() {
		return nil
	}
	n, err := s.NodeView.Get(r.Context(), in.Name)
	if err != nil && !errors.Is(err, domain.ErrNotFound) {
		return err
	}
	var old map[string]string
	if err == nil {
		old = conversions.NodeToAPI(n).Labels
	}
	return restrictNodeLabels(in.Name, old, in.Labels)
}

// deregisterAgent records a clean stop, so that the next registration is a
// "clean start".
func (s *Server) deregisterAgent(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	n, err := s.Nodes.Execute(r.Context(), domain.Key{Name: name}, domain.DeregisterNode{})
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	s.writeNode(w, http.StatusOK, n)
}

func (s *Server) agentHeartbeat(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	m, err := decodeAgentHeartbeat(r, name)
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	n, err := s.Nodes.Execute(r.Context(), domain.Key{Name: name}, domain.RecordHeartbeat{Metrics: &m, Thresholds: s.cfg.Thresholds})
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	s.writeNode(w, http.StatusOK, n)
}

// decodeAgentHeartbeat reads the body strictly: unknown fields are typos
// and rejected, missing metrics are named.
func decodeAgentHeartbeat(r *http.Request, name string) (domain.Metrics, error) {
	data, err := io.ReadAll(r.Body)
	if err != nil {
		return domain.Metrics{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var hb conversions.AgentHeartbeat
	if err := dec.Decode(&hb); err != nil {
		return domain.Metrics{}, badRequest("the heartbeat body is not valid: %v", err)
	}
	if err := cleanText(&hb); err != nil {
		return domain.Metrics{}, err
	}
	if hb.Metrics == nil {
		return domain.Metrics{}, &domain.InvalidError{Kind: "Node", Name: name,
			Fields: []domain.FieldError{{Field: "metrics", Reason: "Required value"}}}
	}
	var (
		out     domain.Metrics
		missing []domain.FieldError
	)
	take := func(field string, present bool) {
		if !present {
			missing = append(missing, domain.FieldError{Field: "metrics." + field, Reason: "Required value"})
		}
	}
	p := hb.Metrics
	take("cpuCount", set(p.CPUCount, &out.CPUCount))
	take("load1", set(p.Load1, &out.Load1))
	take("load5", set(p.Load5, &out.Load5))
	take("load15", set(p.Load15, &out.Load15))
	take("memoryTotalBytes", set(p.MemoryTotalBytes, &out.MemoryTotalBytes))
	take("memoryAvailableBytes", set(p.MemoryAvailableBytes, &out.MemoryAvailableBytes))
	take("diskTotalBytes", set(p.DiskTotalBytes, &out.DiskTotalBytes))
	take("diskAvailableBytes", set(p.DiskAvailableBytes, &out.DiskAvailableBytes))
	take("pidsMax", set(p.PIDsMax, &out.PIDsMax))
	take("pidsCurrent", set(p.PIDsCurrent, &out.PIDsCurrent))
	take("activeJobs", set(p.ActiveJobs, &out.ActiveJobs))
	out.CPUPercent, out.Links, out.Services = p.CPUPercent, p.Links, p.Services // optional
	if len(missing) > 0 {
		return out, &domain.InvalidError{Kind: "Node", Name: name, Fields: missing}
	}
	return out, nil
}

// set copies *src into dst when src is present and says whether it was.
func set[T any](src *T, dst *T) bool {
	if src == nil {
		return false
	}
	*dst = *src
	return true
}
