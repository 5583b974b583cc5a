package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/clock"

	"herd/domain"
	"herd/events"
	"herd/projections"
	"herd/projections/watch"
)

// MaxBodyBytes caps every request body. A Node is a few kilobytes; 1 MiB
// leaves ample room while keeping a misbehaving client from making herd
// buffer megabytes (kube-apiserver allows 3 MiB for far larger objects).
const MaxBodyBytes = 1 << 20

// Config tunes the API.
type Config struct {
	// Thresholds decide the pressure conditions from agents' metrics.
	Thresholds domain.Thresholds
	// Version is herd's own version, reported by /version.
	Version string
	// Profiling serves Go's profiles under /debug/pprof/ to
	// administrators (kube-apiserver's --profiling).
	Profiling bool
	// NodeMonitorGracePeriod is how long herd lets a node stay silent
	// (--node-monitor-grace-period): the duration of the lease herd
	// derives for a node that keeps none. Zero means the kubelet's 40 s.
	NodeMonitorGracePeriod time.Duration
	// AnonymousHosts are the host names, besides localhost and loopback
	// addresses, that a herd without credentials answers (the name of
	// the address it listens on): any other Host is refused, so that a
	// page whose name an attacker rebinds to herd's address cannot use
	// it.
	AnonymousHosts []string
	// AnonymousIPHosts lets a herd without credentials answer every IP
	// address as Host (--insecure-allow-anonymous on every interface):
	// an address cannot be rebound, only a name can.
	AnonymousIPHosts bool
	// MaxWatchesPerUser bounds the watches one user holds open at once;
	// past it a watch is refused with 429 and Retry-After. Zero means
	// DefaultMaxWatchesPerUser; negative, no bound.
	MaxWatchesPerUser int
	// KubeletTokenDir is --kubelet-token-dir: the directory the bearer
	// token file of a kubelet target added through the API must lie in.
	// Empty allows none.
	KubeletTokenDir string
	// ExpensiveReads is how many reads of the log or of history (audit,
	// timelines, explanations, series, lists of the past) run at once;
	// one more is refused with 429 and Retry-After. Zero means half the
	// cores, at least one (read_share.go).
	ExpensiveReads int
	// ReadTimeout bounds each such read: past it the read's queries are
	// cancelled in the database and the client gets 504. Zero means 10 s.
	ReadTimeout time.Duration
	// MaxRequestsInflight bounds the reads (gets and lists; watches are
	// bounded per user) that run at once, and MaxMutatingRequestsInflight
	// the writes other than node heartbeats; one more is refused with 429
	// and Retry-After (priority.go). Zero means kube-apiserver's defaults,
	// 400 and 200; negative, no bound.
	MaxRequestsInflight, MaxMutatingRequestsInflight int
	// MaxHeartbeatsInflight bounds the node heartbeats taken in at once;
	// one more is refused with 429 and Retry-After, and still counts for
	// its node. Zero means 1,000; negative, no bound.
	MaxHeartbeatsInflight int
	// WhatIfTimeout bounds one what-if (--what-if-timeout): past it the
	// simulation is stopped and the client gets 504. Zero means 2 min.
	WhatIfTimeout time.Duration
	// WhatIfMaxWindow is the longest window a what-if may ask
	// (--what-if-max-window); a longer one is refused with 400. Zero
	// means 24 h.
	WhatIfMaxWindow time.Duration
}

// Deps are what the API reads and writes through.
type Deps struct {
	Nodes    domain.Executor[domain.Node, domain.NodeCommand]
	NodeView *projections.NodeView
	Pods     domain.Executor[domain.Pod, domain.PodCommand]
	// KubeletTargets stores the kubelets herd polls.
	KubeletTargets domain.Executor[domain.KubeletTargets, domain.KubeletTargetsCommand]
	PodView        *projections.PodView
	Timeline       *projections.TimelineView
	// KubeletTargetView reads the kubelets herd polls.
	KubeletTargetView *projections.KubeletTargetView
	// Log is the event log itself: its head, audit queries, commits,
	// compaction and whether it can be written.
	Log events.Log
	// Watch serves watches and consistent lists of every resource.
	Watch    *watch.Hub
	Clock    clock.PassiveClock
	Logger   *zap.Logger
	Gatherer prometheus.Gatherer

	ConfigMaps     domain.Executor[domain.ConfigMap, domain.ConfigMapCommand]
	ConfigMapView  *projections.ConfigMapView
	Devices        domain.Executor[domain.DeviceBinding, domain.DeviceCommand]
	DeviceBindings *projections.DeviceBindingView
	// Namespaces and NamespaceView store and read namespaces; every
	// create of a namespaced object checks its namespace first.
	Namespaces    domain.Executor[domain.Namespace, domain.NamespaceCommand]
	NamespaceView *projections.NamespaceView
	// Leases and LeaseView store and read leases (coordination.k8s.io).
	Leases    domain.Executor[domain.Lease, domain.LeaseCommand]
	LeaseView *projections.LeaseView
	// ReplicaSets and ReplicaSetView store and read ReplicaSets (apps/v1).
	ReplicaSets    domain.Executor[domain.ReplicaSet, domain.ReplicaSetCommand]
	ReplicaSetView *projections.ReplicaSetView
	// Deployments and DeploymentView store and read Deployments (apps/v1).
	Deployments    domain.Executor[domain.Deployment, domain.DeploymentCommand]
	DeploymentView *projections.DeploymentView
	// PodDisruptionBudgets and PodDisruptionBudgetView store and read
	// PodDisruptionBudgets (policy/v1).
	PodDisruptionBudgets    domain.Executor[domain.PodDisruptionBudget, domain.PodDisruptionBudgetCommand]
	PodDisruptionBudgetView *projections.PodDisruptionBudgetView
	// Evictions evict pods within their disruption budgets: the
	// eviction subresource is served only with them.
	Evictions domain.Executor[domain.Pod, domain.Eviction]
	// Jobs and JobView store and read Jobs (batch/v1).
	Jobs    domain.Executor[domain.Job, domain.JobCommand]
	JobView *projections.JobView
	// CronJobs and CronJobView store and read CronJobs (batch/v1).
	CronJobs    domain.Executor[domain.CronJob, domain.CronJobCommand]
	CronJobView *projections.CronJobView
	// StatefulSets and StatefulSetView store and read StatefulSets
	// (apps/v1).
	StatefulSets    domain.Executor[domain.StatefulSet, domain.StatefulSetCommand]
	StatefulSetView *projections.StatefulSetView
	// ControllerRevisions and ControllerRevisionView store and read
	// ControllerRevisions (apps/v1).
	ControllerRevisions    domain.Executor[domain.ControllerRevision, domain.ControllerRevisionCommand]
	ControllerRevisionView *projections.ControllerRevisionView
	// DaemonSets and DaemonSetView store and read DaemonSets (apps/v1).
	DaemonSets    domain.Executor[domain.DaemonSet, domain.DaemonSetCommand]
	DaemonSetView *projections.DaemonSetView
	// Auth tells who sends each request on the API listener; nil serves
	// every request as Anonymous, as herd does without a token file.
	Auth Authenticator
	// Reconcilers says which replica runs the reconcilers, for
	// /readyz?verbose; nil says nothing of them.
	Reconcilers LeaderSource
	// Retention says which replica runs the heartbeat retention policy,
	// likewise.
	Retention LeaderSource
	// UI serves the web view under UIPath, and a browser asking for / is
	// sent there; nil serves no web view.
	UI http.Handler
	// WritePath says how far behind herd's writes are: while behind,
	// requests other than node heartbeats are refused with 429, and
	// /readyz says so. Nil: never behind.
	WritePath WriteBacklog
	// Heartbeats is told of every node heartbeat as it arrives, before
	// its write is queued; nil tells nobody.
	Heartbeats HeartbeatArrivals
	// Registerer takes the API's own metrics (refused requests); nil
	// registers them nowhere.
	Registerer prometheus.Registerer
	// WhatIf runs what-ifs on the log (herd.dev/v1 whatifs); nil
	// serves none.
	WhatIf WhatIfRunner
	// Started says whether herd has finished starting (every start
	// hook run: the kubeconfig written among them); until it has,
	// /readyz fails, as kube-apiserver's does until its post-start hooks
	// finish. Nil: started.
	Started func() bool
}

// UIPath is where the web view is served: its routes, the public paths
// and the redirect of a browser at / all say it from here.
const UIPath = "/ui/"

// Server serves herd's HTTP API.
type Server struct {
	Deps
	cfg Config
	mux *http.ServeMux
	// served are the kinds of every resource served (kinds.go), and
	// byResource each by its group and resource.
	served     []*kind
	byResource map[schema.GroupResource]*kind
	// openAPI are the OpenAPI documents, built from served on first use.
	openAPI func() (map[string]openAPIDoc, error)
	// watches bounds the watches each user holds open.
	watches *watchLimiter
	// reads holds a token for every expensive read running
	// (read_share.go).
	reads chan struct{}
	// shares bounds the requests of each priority level running at once
	// and counts those refused (priority.go).
	shares *shares
	// whatIfs holds a token for the what-if running: one at a time.
	whatIfs chan struct{}
}

// NewServer returns a Server with every route registered, and tells the
// watch hub (which must not have started yet) about every resource.
func NewServer(deps Deps, cfg Config) (*Server, error) {
	s := &Server{Deps: deps, cfg: cfg, mux: http.NewServeMux(), watches: newWatchLimiter(cfg.MaxWatchesPerUser), reads: make(chan struct{}, cfg.expensiveReads()), whatIfs: make(chan struct{}, 1)}
	var err error
	if s.shares, err = newShares(cfg, deps.Registerer); err != nil {
		return nil, err
	}
	if err := s.indexKinds(); err != nil {
		return nil, err
	}
	s.openAPI = sync.OnceValues(func() (map[string]openAPIDoc, error) { return openAPIDocs(s.served) })
	if err := s.registerWatches(); err != nil {
		return nil, err
	}
	s.routes()
	if cfg.Profiling {
		s.profilingRoutes()
	}
	return s, nil
}

// ServeHTTP implements http.Handler: the API listener, behind
// authentication and authorization.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	auth := s.Auth
	if auth == nil {
		auth = AllowAnonymous{}
	}
	s.serve(w, r, mainGate{s: s, auth: auth})
}

// serve runs one request through gate, then the routes. The user the gate
// admits is the actor of every event the request causes.
func (s *Server) serve(w http.ResponseWriter, r *http.Request, g gate) {
	if r.Body != nil {
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
	}
	start := time.Now()
	rec := &statusRecorder{ResponseWriter: w, code: http.StatusOK, out: jsonOutput}
	id, err := requestID(r.Header.Get("X-Request-Id"))
	if err != nil {
		s.writeError(rec, err, "", "")
		return
	}
	w.Header().Set("X-Request-Id", id)
	if err := checkQuery(r.URL.RawQuery); err != nil {
		s.writeError(rec, err, "", "")
		return
	}
	if err := s.guard(r, g); err != nil {
		s.writeError(rec, err, "", "")
		return
	}
	user, err := g.authenticate(r)
	if err != nil {
		s.writeError(rec, err, "", "")
	} else {
		ctx := events.WithMetadata(withUser(r.Context(), user), events.Metadata{
			Actor:         user.Name,
			CorrelationID: id,
			Source:        g.source(),
		})
		ctx = context.WithValue(ctx, gateKey{}, g)
		// The route decides the rest (see admit): who may, and in which
		// form the answer comes.
		s.mux.ServeHTTP(rec, r.WithContext(ctx))
	}
	s.Logger.Debug("request", zap.String("method", r.Method), zap.String("path", r.URL.Path), zap.String("user", user.Name),
		zap.Int("code", rec.code), zap.String("content_type", mediaType(r)), zap.String("answered_as", rec.out.info.MediaType), zap.Duration("took", time.Since(start)), zap.String("request_id", id))
}

// gate admits requests to the routes: the API listener's authentication
// and roles, or the device listener's rules.
type gate interface {
	// authenticate says who sent the request (401 when nobody valid).
	authenticate(r *http.Request) (User, error)
	// authorize says whether the user may make the request ri says the
	// matched route asks for (403 if not). r carries the user and the
	// events' metadata already.
	authorize(r *http.Request, u User, ri requestInfo) error
	// source names the listener in the events' metadata.
	source() string
}

// gateKey carries the gate that admitted a request to its route.
type gateKey struct{}

// routeMux registers routes on the server's mux, each behind admit.
type routeMux struct{ s *Server }

// HandleFunc registers fn for pattern, behind admit.
func (m routeMux) HandleFunc(pattern string, fn http.HandlerFunc) { m.Handle(pattern, fn) }

// Handle registers h for pattern, behind admit.
func (m routeMux) Handle(pattern string, h http.Handler) { m.s.mux.Handle(pattern, m.s.admit(h)) }

// readsNoBody is a handler that answers without reading the request's
// body (a route herd does not serve): admit refuses no body type for it,
// so that a client hears why the route is not served, not that its
// body's type is not read.
type readsNoBody http.HandlerFunc

// ServeHTTP calls the function.
func (f readsNoBody) ServeHTTP(w http.ResponseWriter, r *http.Request) { f(w, r) }

// admit runs once the mux has matched a route: the gate that
// authenticated the request decides from the route (routeInfo) whether
// the user may make it, and the answer's form is settled, before h runs
// and anything changes — a request refused (403) or whose answer no form
// fits (406) does nothing.
func (s *Server) admit(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ri := routeInfo(r)
		g, _ := r.Context().Value(gateKey{}).(gate)
		u, _ := UserFrom(r.Context())
		var err error
		if g == nil {
			err = errors.New("no gate admitted the request")
		} else {
			err = g.authorize(r, u, ri)
		}
		o, hasOffer := s.offerFor(r, ri)
		if _, readsNone := h.(readsNoBody); err == nil && !readsNone {
			err = checkBodyType(r, o, hasOffer)
		}
		if hasOffer {
			out, negotiated := negotiate(r.Header.Get("Accept"), o)
			out.include = r.URL.Query().Get("includeObject")
			if rec, isRec := w.(*statusRecorder); isRec {
				rec.out = out
			}
			if err == nil {
				err = negotiated
			}
		}
		watching := isWatchRequest(r, ri)
		if err == nil && watching {
			var release func()
			if release, err = s.watches.acquire(u.Name); err == nil {
				defer release()
			}
		}
		level := priorityOf(r, ri)
		if err == nil && level == levelHeartbeats {
			// Noted before its write is queued, and before its share
			// admits it: herd heard the node now, however long the write
			// waits or if the share is full (priority.go).
			answered := s.noteHeartbeat(ri)
			defer func() { answered(codeOf(w)) }()
		}
		if err == nil {
			var release func()
			if release, err = s.admitPriority(level, watching); err == nil {
				defer release()
			}
		}
		if err != nil {
			s.writeError(w, err, "", "")
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (s *Server) routes() {
	m := routeMux{s}
	m.HandleFunc("GET /healthz", s.healthz)
	m.HandleFunc("GET /livez", s.healthz)
	m.HandleFunc("GET /readyz", s.readyz)
	m.Handle("GET /metrics", s.ruled(promhttp.HandlerFor(s.Gatherer, promhttp.HandlerOpts{})))

	m.HandleFunc("GET /version", s.version)
	m.HandleFunc("GET /openapi/v3", s.openAPIIndex)
	m.HandleFunc("GET /openapi/v3/{path...}", s.openAPIGroupVersion)
	s.discoveryRoutes(m)
	for _, k := range s.served {
		k.routes(m)
	}
	s.unservedRoutes(m)
	if s.UI != nil {
		m.Handle("GET "+UIPath, s.UI)
		m.Handle("GET "+strings.TrimSuffix(UIPath, "/"), s.UI)
	}
	m.HandleFunc("GET /{$}", s.root)

	// A path herd serves nothing at is a 404 whatever its body: a
	// client writing a kind herd does not have (kubectl create quota,
	// in protobuf) hears that, not that its body's type is not read.
	m.Handle("/", readsNoBody(s.notFound))
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.writeStatus(w, metav1Status(http.StatusNotFound, "NotFound", "the server could not find the requested resource "+r.URL.Path))
}

// writeJSON writes v as the response body with code.
func (s *Server) writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	if err := enc.Encode(v); err != nil {
		s.Logger.Debug("write response", zap.Error(err))
	}
}

// writeError answers with the Status for err about the named object.
func (s *Server) writeError(w http.ResponseWriter, err error, kind, name string) {
	st := statusFor(err, kind, name)
	if st.Code >= 500 {
		s.Logger.Error("request failed", zap.String("kind", kind), zap.String("name", name), zap.Error(err))
	}
	s.writeStatus(w, st)
}

// statusRecorder is the ResponseWriter every handler writes to: it
// records the status code for the request log, and carries the answer's
// negotiated form to the helpers that write objects and errors.
type statusRecorder struct {
	http.ResponseWriter
	code int
	out  output
}

func (r *statusRecorder) WriteHeader(code int) {
	r.code = code
	r.ResponseWriter.WriteHeader(code)
}

// codeOf is the status code w answered with: 200 unless a statusRecorder
// says otherwise.
func codeOf(w http.ResponseWriter) int {
	if rec, ok := w.(*statusRecorder); ok {
		return rec.code
	}
	return http.StatusOK
}

// Flush passes flushes through, for streaming responses.
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection, which
// long-lived watches need to lift the server's deadlines.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
