package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"path"
	"strings"

	corev1 "k8s.io/api/core/v1"

	"herd/domain"
)

// DeviceConfig is the device listener's policy. Devices such as the Pico
// send no credentials; the device listener stands in for authentication
// with three rules: the source network, the name, and the address a name
// was first heard from.
type DeviceConfig struct {
	// Allow lists the node names devices may speak for, as glob patterns
	// matched by path.Match ("pico-*"). From --device-allow.
	Allow []string
	// SourceNetworks are the networks devices may connect from. From
	// --device-source-networks.
	SourceNetworks []netip.Prefix
}

// Validate names every problem with the policy.
func (c DeviceConfig) Validate() error {
	var errs []error
	if len(c.Allow) == 0 {
		errs = append(errs, errors.New("--device-allow: give at least one node name pattern (such as pico-*) devices may register"))
	}
	for _, p := range c.Allow {
		if _, err := path.Match(p, ""); err != nil || strings.TrimSpace(p) == "" {
			errs = append(errs, fmt.Errorf("--device-allow %q: not a glob pattern", p))
		}
	}
	if len(c.SourceNetworks) == 0 {
		errs = append(errs, errors.New("--device-source-networks: give at least one network (such as 192.168.4.0/24) devices connect from"))
	}
	return errors.Join(errs...)
}

// DeviceHandler returns the device listener's handler: the same API, but
// only node registration (POST /api/v1/nodes), node status (PATCH
// /api/v1/nodes/{name}/status) and ConfigMap reads (GET
// /api/v1/namespaces/{namespace}/configmaps/{name}), and only
//
//   - from an address in one of cfg.SourceNetworks;
//   - for a node name that matches cfg.Allow;
//   - from the address the name is bound to: the first address to register
//     or report for a name is bound to it (a DeviceBound event, so the
//     binding outlives restarts) until an admin releases it;
//   - for ConfigMaps granted (AnnotationReadableByNodes) to a name bound to
//     the source address.
//
// Everything else is 403 Forbidden.
func (s *Server) DeviceHandler(cfg DeviceConfig) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.serve(w, r, deviceGate{s: s, cfg: cfg})
	})
}

type deviceGate struct {
	s   *Server
	cfg DeviceConfig
}

func (g deviceGate) source() string { return "device-listener" }

// authenticate identifies a device by its source address, the one thing
// herd can check: the user is system:device:ADDRESS.
func (g deviceGate) authenticate(r *http.Request) (User, error) {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return User{}, forbidden("the device listener cannot tell the source address of %q", r.RemoteAddr)
	}
	addr := ap.Addr().Unmap()
	for _, n := range g.cfg.SourceNetworks {
		if n.Contains(addr) {
			return User{Name: "system:device:" + addr.String()}, nil
		}
	}
	return User{}, forbidden("devices may not connect from %s: it is not in --device-source-networks", addr)
}

func (g deviceGate) authorize(r *http.Request, u User, ri requestInfo) error {
	addr := strings.TrimPrefix(u.Name, "system:device:")
	switch {
	case ri.Group == "" && ri.Resource == "nodes" && ri.Name == "" && ri.Subresource == "" && ri.Verb == "create":
		obj, err := peekObject(r, &corev1.Node{})
		if err != nil {
			return err
		}
		if err := restrictNodeLabels(obj.GetName(), nil, obj.GetLabels()); err != nil {
			return err
		}
		return g.speakFor(r, obj.GetName(), addr)
	case ri.Group == "" && ri.Resource == "nodes" && ri.Subresource == "status" && ri.Verb == "patch":
		return g.speakFor(r, ri.Name, addr)
	case ri.Group == "" && ri.Resource == "configmaps" && ri.Name != "" && ri.Subresource == "" && ri.Verb == "get":
		bound, err := g.s.DeviceBindings.BoundTo(r.Context(), addr)
		if err != nil {
			return err
		}
		var names []string
		for _, b := range bound {
			names = append(names, b.Name)
		}
		if len(names) == 0 {
			return forbidden("configmaps %q is forbidden: no device is bound to %s yet; a device registers before it reads its configuration", ri.Name, addr)
		}
		ok, err := g.s.configMapGranted(r, ri.Namespace, ri.Name, names)
		if err != nil || ok {
			return err
		}
		return forbidden("configmaps %q is forbidden: it is not granted to %s (grant it with the annotation %s)",
			ri.Name, strings.Join(names, ", "), AnnotationReadableByNodes)
	}
	return forbidden("the device listener accepts only POST /api/v1/nodes, PATCH /api/v1/nodes/{name}/status " +
		"and GET /api/v1/namespaces/{namespace}/configmaps/{name}")
}

// speakFor checks the name against the allow-list and the binding, binding
// the name to addr when it is free.
func (g deviceGate) speakFor(r *http.Request, name, addr string) error {
	if !allowed(g.cfg.Allow, name) {
		return forbidden("nodes %q is forbidden: the name does not match --device-allow (%s)", name, strings.Join(g.cfg.Allow, ", "))
	}
	cmd := domain.BindDevice{Name: name, Address: addr}
	now := g.s.Clock.Now()
	// Decide on the view first: a bound device reports every 10 s, and
	// its reports need no write transaction for the binding.
	b, err := g.s.DeviceBindings.Get(r.Context(), name)
	if err != nil {
		return err
	}
	if evs, err := domain.DecideDevice(b, cmd, now); err != nil || len(evs) == 0 {
		return err
	}
	_, err = g.s.Devices.Execute(r.Context(), domain.Key{Name: name}, cmd)
	return err
}

// allowed reports whether name matches one of the patterns.
func allowed(patterns []string, name string) bool {
	if name == "" {
		return false
	}
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
