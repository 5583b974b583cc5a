package features

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cucumber/godog"
	corev1 "k8s.io/api/core/v1"

	"herd/adapters/rp2040/picosim"
	"herd/cmd/herd/app"
)

// devices are the scenario's simulated Picos and, when one runs, herd's
// device listener.
type devices struct {
	// listener is herd's device listener; nil when none runs.
	listener *app.DeviceServer
	// listen is the device listener's fixed address, kept across
	// restarts of herd so that the boards find it again.
	listen string
	picos  map[string]*picosim.Pico
	off    map[string]bool
	// boot is how the latest power-on went, and of which board.
	boot     picosim.BootResult
	bootName string
}

func (d *devices) close() error {
	var errs []error
	for _, p := range d.picos {
		errs = append(errs, p.Close())
	}
	return errors.Join(errs...)
}

// probeWait bounds the wait for herd's kubelet probe, which runs on its own
// goroutines against a real socket.
const probeWait = 10 * time.Second

func (w *world) registerPicoSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the Pico "([^"]+)" (?:is|was) switched on$`, func(name string) error { return w.switchOn(name, "") })
	sc.Step(`^the Pico "([^"]+)" at (\S+) (?:is|was) switched on$`, w.switchOn)
	sc.Step(`^a Pico at (\S+) claiming to be "([^"]+)" is switched on$`, func(addr, name string) error { return w.impostor(name, addr) })
	sc.Step(`^"([^"]+)" is switched off and on again$`, w.reboot)
	sc.Step(`^"([^"]+)" is switched off$`, w.switchOff)
	sc.Step(`^its registration was accepted$`, w.registrationAccepted)
	sc.Step(`^its registration was refused with (\d+) and its status report was accepted$`, w.registrationFellBack)
	sc.Step(`^"([^"]+)" reports its status$`, w.picoReports)
	sc.Step(`^"([^"]+)" reports every (\d+) seconds for (\d+) (seconds|minutes?)$`, w.picoKeepsReporting)
	sc.Step(`^"([^"]+)" polls its configuration$`, w.picoPolls)
	sc.Step(`^"([^"]+)" reads the configuration:$`, w.picoRead)
	sc.Step(`^"([^"]+)" has read no configuration$`, w.picoReadNothing)
	sc.Step(`^every request of "([^"]+)" so far went out as the firmware writes it$`, w.firmwareBytes)
	sc.Step(`^node "([^"]+)" offers room for no pod$`, w.roomForNoPod)

	sc.Step(`^herd soon finds the kubelet endpoint of "([^"]+)" reachable$`, w.soonReachable)
	sc.Step(`^herd soon finds the kubelet endpoint of "([^"]+)" unreachable: (\w+), "([^"]+)"$`, w.soonUnreachable)
	sc.Step(`^the kubelet endpoint of "([^"]+)" (stops|starts) answering$`, w.kubeletEndpoint)
}

// pico returns a board the scenario switched on.
func (w *world) pico(name string) (*picosim.Pico, error) {
	p, ok := w.devices.picos[name]
	if !ok {
		return nil, fmt.Errorf("no Pico %q was switched on in this scenario", name)
	}
	if w.devices.off[name] {
		return nil, fmt.Errorf("the Pico %q is switched off", name)
	}
	return p, nil
}

// picoServer is where a board sends its requests: herd's device listener
// when it runs, else its API listener (plain HTTP, as the firmware speaks).
func (w *world) picoServer() string {
	if w.devices.listener != nil {
		return w.devices.listener.URL()
	}
	return w.server.URL()
}

// switchOn powers on a board that talks from the loopback address addr
// (the system's choice when empty), creating it on first use: it serves
// its port-10250 endpoint on 127.0.0.1 and reports that address.
func (w *world) switchOn(name, addr string) error {
	if w.devices.picos == nil {
		w.devices.picos, w.devices.off = map[string]*picosim.Pico{}, map[string]bool{}
	}
	p, ok := w.devices.picos[name]
	if !ok {
		var err error
		p, err = picosim.New(picosim.Config{
			Name: name, Server: w.picoServer(), SourceIP: addr, KubeletListen: "127.0.0.1:0",
			Clock: w.clock, Timeout: requestTimeout,
		})
		if err != nil {
			return err
		}
		w.devices.picos[name] = p
	} else if w.devices.off[name] {
		if err := p.StartKubelet(); err != nil {
			return err
		}
	}
	w.devices.off[name] = false
	return w.boot(p)
}

// impostor is another board, at another address, with a name already
// taken: it gets its own simulated board under its own key.
func (w *world) impostor(name, addr string) error {
	p, err := picosim.New(picosim.Config{Name: name, Server: w.picoServer(), SourceIP: addr, InternalIP: addr, Clock: w.clock, Timeout: requestTimeout})
	if err != nil {
		return err
	}
	key := name + "@" + addr
	w.devices.picos[key] = p
	return w.boot(p)
}

// boot runs a power-on as one request of the scenario: the log mark
// before it, the last answer after it.
func (w *world) boot(p *picosim.Pico) error {
	mark, err := w.logMark()
	if err != nil {
		return err
	}
	w.before = mark
	res, bootErr := p.Boot()
	w.devices.boot, w.devices.bootName = res, p.Name()
	w.lastExchange(p)
	if err := w.settle(); err != nil {
		return err
	}
	if bootErr != nil && res.PostStatus == 0 {
		return fmt.Errorf("the Pico %s could not reach herd: %w", p.Name(), bootErr)
	}
	return nil
}

// lastExchange keeps the board's latest exchange as the scenario's last
// answer, so that "the request fails with ..." reads it.
func (w *world) lastExchange(p *picosim.Pico) {
	h := p.History()
	if len(h) == 0 {
		return
	}
	x := h[len(h)-1]
	line, _, _ := strings.Cut(string(x.Request), "\r\n")
	method, path, _ := strings.Cut(line, " ")
	path, _, _ = strings.Cut(path, " ")
	w.last = response{method: method, path: path, code: x.Status, body: x.Body}
}

func (w *world) reboot(name string) error {
	p, err := w.pico(name)
	if err != nil {
		return err
	}
	return w.boot(p)
}

// switchOff powers a board off: it reports nothing and its endpoint is
// gone.
func (w *world) switchOff(name string) error {
	p, err := w.pico(name)
	if err != nil {
		return err
	}
	w.devices.off[name] = true
	return p.StopKubelet()
}

func (w *world) registrationAccepted() error {
	if res := w.devices.boot; !res.Registered || res.PostStatus != http.StatusCreated {
		return fmt.Errorf("the Pico %s: POST answered %d, want 201 Created: %s", w.devices.bootName, res.PostStatus, w.last)
	}
	return nil
}

func (w *world) registrationFellBack(code int) error {
	if res := w.devices.boot; res.PostStatus != code || res.PatchStatus != http.StatusOK {
		return fmt.Errorf("the Pico %s: POST %d and PATCH %d, want POST %d and PATCH 200: %s",
			w.devices.bootName, res.PostStatus, res.PatchStatus, code, w.last)
	}
	return nil
}

// picoReports sends one status report as one request of the scenario.
func (w *world) picoReports(name string) error {
	p, err := w.pico(name)
	if err != nil {
		return err
	}
	mark, err := w.logMark()
	if err != nil {
		return err
	}
	w.before = mark
	_, _ = p.Report()
	w.lastExchange(p)
	return w.settle()
}

// picoKeepsReporting is the firmware's loop on herd's clock: every period,
// the clock moves on and the board reports.
func (w *world) picoKeepsReporting(name string, every, n int, unit string) error {
	p, err := w.pico(name)
	if err != nil {
		return err
	}
	total := time.Duration(n) * time.Second
	if strings.HasPrefix(unit, "minute") {
		total = time.Duration(n) * time.Minute
	}
	period := time.Duration(every) * time.Second
	for elapsed := period; elapsed <= total; elapsed += period {
		if err := w.setClock(w.clock.Now().Add(period)); err != nil {
			return err
		}
		code, err := p.Report()
		if err != nil {
			return fmt.Errorf("the report after %s: %w", elapsed, err)
		}
		if code != http.StatusOK {
			return fmt.Errorf("the report after %s: %d", elapsed, code)
		}
		if err := w.settle(); err != nil {
			return err
		}
	}
	return nil
}

func (w *world) picoPolls(name string) error {
	p, err := w.pico(name)
	if err != nil {
		return err
	}
	_, _, _ = p.PollConfig()
	w.lastExchange(p)
	return nil
}

func (w *world) picoRead(name string, t *godog.Table) error {
	rows, err := pairs(t)
	if err != nil {
		return err
	}
	want := map[string]string{}
	for _, r := range rows {
		want[r[0]] = r[1]
	}
	p, err := w.pico(name)
	if err != nil {
		return err
	}
	if got := p.Config(); !maps.Equal(got, want) {
		return fmt.Errorf("%s read %v, want %v (last answer: %s)", name, got, want, w.last)
	}
	return nil
}

func (w *world) picoReadNothing(name string) error {
	p, err := w.pico(name)
	if err != nil {
		return err
	}
	if got := p.Config(); got != nil {
		return fmt.Errorf("%s read %v, want nothing", name, got)
	}
	return nil
}

// firmwareBytes checks what the board sent against the contract: its
// headers, no credentials, and conditions stamped 1970 until herd's Date
// header set its clock.
func (w *world) firmwareBytes(name string) error {
	p, err := w.pico(name)
	if err != nil {
		return err
	}
	for i, x := range p.History() {
		req := string(x.Request)
		head, body, _ := strings.Cut(req, "\r\n\r\n")
		for _, h := range []string{"Accept: application/json", "User-Agent: k3s-pico-node/1.0", "Connection: close"} {
			if !strings.Contains(head+"\r\n", "\r\n"+h+"\r\n") {
				return fmt.Errorf("request %d lacks %q:\n%s", i, h, head)
			}
		}
		if strings.Contains(strings.ToLower(head), "authorization") {
			return fmt.Errorf("request %d carries credentials:\n%s", i, head)
		}
		if body != "" && !strings.Contains(head, "Content-Length: "+strconv.Itoa(len(body))) {
			return fmt.Errorf("request %d: Content-Length does not match its body", i)
		}
		if i == 0 && !strings.Contains(body, `"lastHeartbeatTime":"1970-01-01T00:00:00Z"`) {
			return fmt.Errorf("the first request was not stamped 1970:\n%s", body)
		}
	}
	return nil
}

// roomForNoPod checks what keeps pods off the node: capacity and
// allocatable pods are exactly 0.
func (w *world) roomForNoPod(name string) error {
	n, err := w.node(name)
	if err != nil {
		return err
	}
	for _, list := range []corev1.ResourceList{n.Status.Capacity, n.Status.Allocatable} {
		q, ok := list[corev1.ResourcePods]
		if !ok || !q.IsZero() {
			return fmt.Errorf("%s offers pods %v, want exactly 0", name, list)
		}
	}
	return nil
}

// soonReachable waits for herd's probe to find the endpoint answering.
func (w *world) soonReachable(name string) error {
	return w.soonKubelet(name, corev1.ConditionTrue, "KubeletHealthy", "200 OK")
}

func (w *world) soonUnreachable(name, reason, words string) error {
	return w.soonKubelet(name, corev1.ConditionFalse, reason, words)
}

// soonKubelet polls the node until its KubeletReachable condition has the
// status and reason and its message the words, or the deadline passes.
func (w *world) soonKubelet(name string, status corev1.ConditionStatus, reason, words string) error {
	p, err := w.pico(name)
	if err != nil {
		return err
	}
	deadline := time.NewTimer(probeWait)
	defer deadline.Stop()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	var last string
	for {
		n, err := w.node(name)
		if err != nil {
			return err
		}
		last = "no KubeletReachable condition"
		for _, c := range n.Status.Conditions {
			if c.Type != "KubeletReachable" {
				continue
			}
			last = fmt.Sprintf("%s %s %q", c.Status, c.Reason, c.Message)
			want := "GET http://" + net.JoinHostPort(p.InternalIP(), portOf(p.KubeletAddr())) + "/healthz: "
			if c.Status == status && c.Reason == reason && strings.HasPrefix(c.Message, want) && strings.Contains(c.Message, words) {
				return w.settle()
			}
		}
		select {
		case <-deadline.C:
			return fmt.Errorf("after %s herd shows %s for %s, want %s %s with %q", probeWait, last, name, status, reason, words)
		case <-tick.C:
		}
	}
}

func portOf(addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return port
}

func (w *world) kubeletEndpoint(name, what string) error {
	p, err := w.pico(name)
	if err != nil {
		return err
	}
	if what == "stops" {
		return p.StopKubelet()
	}
	return p.StartKubelet()
}
