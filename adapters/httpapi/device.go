package httpapi

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/netip"
	"path"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/adapters/rp2040"
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
	// Rate is how many requests a second one source address may send,
	// on average (--device-rate); past it, 429 with Retry-After. 0 is
	// DefaultDeviceRate.
	Rate float64
	// Burst is how many requests one source address may send at once
	// (--device-burst). 0 is DefaultDeviceBurst.
	Burst int
}

// setDefaults fills in the rate and burst left zero.
func (c *DeviceConfig) setDefaults() {
	if c.Rate == 0 {
		c.Rate = DefaultDeviceRate
	}
	if c.Burst == 0 {
		c.Burst = DefaultDeviceBurst
	}
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
	if c.Rate < 0 || math.IsNaN(c.Rate) || math.IsInf(c.Rate, 0) {
		errs = append(errs, fmt.Errorf("--device-rate %g: want a positive number of requests a second", c.Rate))
	}
	if c.Burst < 0 {
		errs = append(errs, fmt.Errorf("--device-burst %d: want a positive number of requests", c.Burst))
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
//     the source address;
//   - for a node that is what an RP2040 board is (rp2040.CheckNode): its
//     kind rp2040, its capacity a Pico's, else 422 naming the field;
//   - at cfg.Rate requests a second per source address, in bursts of
//     cfg.Burst, else 429 with Retry-After.
//
// Everything else is 403 Forbidden. A device reads its Node back without
// the KubeletReachable condition: what herd's probe found at the address
// a device reported is for administrators, never for whoever reported it.
func (s *Server) DeviceHandler(cfg DeviceConfig) http.Handler {
	cfg.setDefaults()
	g := deviceGate{s: s, cfg: cfg, limiter: newSourceLimiter(cfg.Rate, cfg.Burst, s.Clock)}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Answers are JSON, as the firmware asks, so that they can be
		// read back and trimmed of what a device must not see.
		r.Header.Set("Accept", "application/json")
		a := &deviceAnswer{w: w}
		s.serve(a, r, g)
		a.finish()
	})
}

type deviceGate struct {
	s       *Server
	cfg     DeviceConfig
	limiter *sourceLimiter
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
			// Counted only inside the source networks, which bound
			// the addresses the limiter tracks.
			if err := g.limiter.admit(addr); err != nil {
				return User{}, err
			}
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
		node, ok := obj.(*corev1.Node)
		if !ok {
			return badRequest("the request body is not a Node")
		}
		if err := restrictNodeLabels(obj.GetName(), nil, obj.GetLabels()); err != nil {
			return err
		}
		// Before the name is bound: a refused board binds nothing.
		if bad := rp2040.CheckNode(node); len(bad) > 0 {
			return &domain.InvalidError{Kind: "Node", Name: obj.GetName(), Fields: bad}
		}
		return g.speakFor(r, obj.GetName(), addr)
	case ri.Group == "" && ri.Resource == "nodes" && ri.Subresource == "status" && ri.Verb == "patch":
		// A device reports for an RP2040 board only, not for a node of
		// another kind an administrator gave an allowed name.
		if n, err := g.s.NodeView.Get(r.Context(), ri.Name); err == nil && n.Kind != domain.KindRP2040 {
			return forbidden("nodes %q is forbidden: it is a %s node, and the device listener reports for %s nodes only", ri.Name, n.Kind, domain.KindRP2040)
		} else if err != nil && !errors.Is(err, domain.ErrNotFound) {
			return err
		}
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

// deviceAnswer holds an answer to a device until the handler is done, so
// that a Node in it can be trimmed (withoutProbe) before it leaves.
type deviceAnswer struct {
	w    http.ResponseWriter
	code int
	body bytes.Buffer
}

func (a *deviceAnswer) Header() http.Header { return a.w.Header() }

func (a *deviceAnswer) WriteHeader(code int) {
	if a.code == 0 {
		a.code = code
	}
}

func (a *deviceAnswer) Write(p []byte) (int, error) {
	a.WriteHeader(http.StatusOK)
	return a.body.Write(p)
}

// finish sends the answer, a Node without its KubeletReachable condition.
func (a *deviceAnswer) finish() {
	body := a.body.Bytes()
	if a.code < http.StatusMultipleChoices {
		body = withoutProbe(body)
	}
	a.w.Header().Del("Content-Length")
	a.w.WriteHeader(cmp.Or(a.code, http.StatusOK))
	_, _ = a.w.Write(body)
}

// withoutProbe is a JSON Node without the KubeletReachable condition,
// anything else as it is. herd's probe goes to the address and port a
// node reported; telling a device what answered there would make herd a
// scanner of its own network for anyone who can reach the device
// listener.
func withoutProbe(body []byte) []byte {
	var head metav1.TypeMeta
	if json.Unmarshal(body, &head) != nil || head.Kind != "Node" {
		return body
	}
	var n corev1.Node
	if err := json.Unmarshal(body, &n); err != nil {
		return body
	}
	n.Status.Conditions = slices.DeleteFunc(n.Status.Conditions, func(c corev1.NodeCondition) bool {
		return c.Type == corev1.NodeConditionType(domain.ConditionKubeletReachable)
	})
	out, err := json.Marshal(&n)
	if err != nil {
		return body
	}
	return append(out, '\n')
}
