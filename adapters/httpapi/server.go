package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"
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
	// Auth tells who sends each request on the API listener; nil serves
	// every request as Anonymous, as herd does without a token file.
	Auth Authenticator
	// Reconcilers says which replica runs the reconcilers, for
	// /readyz?verbose; nil says nothing of them.
	Reconcilers LeaderSource
	// Retention says which replica runs the heartbeat retention policy,
	// likewise.
	Retention LeaderSource
}

// Server serves herd's HTTP API.
type Server struct {
	Deps
	cfg Config
	mux *http.ServeMux
	// apiResources are the resources listed and watched through the
	// shared helpers.
	apiResources []*apiResource
	// encodings are the watch hub's objects in protobuf and CBOR, shared
	// by every watcher that asked for them.
	encodings sharedEncodings
}

// NewServer returns a Server with every route registered, and tells the
// watch hub (which must not have started yet) about every resource.
func NewServer(deps Deps, cfg Config) (*Server, error) {
	s := &Server{Deps: deps, cfg: cfg, mux: http.NewServeMux()}
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
		if o, ok := offerFor(r, ri); ok {
			out, negotiated := negotiate(r.Header.Get("Accept"), o)
			if rec, isRec := w.(*statusRecorder); isRec {
				rec.out = out
			}
			if err == nil {
				err = negotiated
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
	m.HandleFunc("GET /api", s.apiVersions)
	m.HandleFunc("GET /apis", s.apiGroups)
	m.HandleFunc("GET /api/v1", s.coreResources)
	m.HandleFunc("GET /apis/"+herdGroup+"/"+herdVersion, s.herdResources)

	m.HandleFunc("GET /api/v1/nodes", s.listNodes)
	m.HandleFunc("POST /api/v1/nodes", s.createNode)
	m.HandleFunc("GET /api/v1/nodes/{name}", s.getNode)
	m.HandleFunc("DELETE /api/v1/nodes/{name}", s.deleteNode)
	m.HandleFunc("GET /api/v1/nodes/{name}/status", s.getNode)
	m.HandleFunc("PATCH /api/v1/nodes/{name}/status", s.patchNodeStatus)
	m.HandleFunc("PUT /api/v1/nodes/{name}", s.updateNode)
	m.HandleFunc("PUT /api/v1/nodes/{name}/status", s.updateNodeStatus)

	m.HandleFunc("GET /api/v1/events", s.listKubeEvents)
	m.HandleFunc("GET /api/v1/namespaces/{namespace}/events", s.listKubeEvents)
	m.HandleFunc("GET /api/v1/namespaces/{namespace}/events/{name}", s.getKubeEvent)
	m.HandleFunc("GET /apis/"+eventsGroupVersion, s.eventsResources)
	m.HandleFunc("GET /apis/"+eventsGroupVersion+"/events", s.listEventsV1)
	m.HandleFunc("GET /apis/"+eventsGroupVersion+"/namespaces/{namespace}/events", s.listEventsV1)
	m.HandleFunc("GET /apis/"+eventsGroupVersion+"/namespaces/{namespace}/events/{name}", s.getEventV1)
	m.HandleFunc("PATCH /api/v1/nodes/{name}", s.patchNode)

	m.HandleFunc("GET /api/v1/pods", s.listPods)
	pods := "/api/v1/namespaces/{namespace}/pods"
	m.HandleFunc("GET "+pods, s.listPods)
	m.HandleFunc("POST "+pods, s.createPod)
	m.HandleFunc("GET "+pods+"/{name}", s.getPod)
	m.HandleFunc("PUT "+pods+"/{name}", s.updatePod)
	m.HandleFunc("PATCH "+pods+"/{name}", s.patchPod)
	m.HandleFunc("DELETE "+pods+"/{name}", s.deletePod)
	m.HandleFunc("GET "+pods+"/{name}/status", s.getPod)
	m.HandleFunc("PUT "+pods+"/{name}/status", s.updatePodStatus)
	m.HandleFunc("PATCH "+pods+"/{name}/status", s.patchPodStatus)
	m.HandleFunc("POST "+pods+"/{name}/eviction", s.evictPod)
	m.HandleFunc("POST "+pods+"/{name}/binding", s.bindPod)

	m.HandleFunc("GET /api/v1/services", s.listServices)
	m.HandleFunc("GET /api/v1/namespaces/{namespace}/services", s.listServices)
	m.HandleFunc("GET /api/v1/namespaces/{namespace}/services/{name}", s.getService)

	m.HandleFunc("GET /api/v1/configmaps", s.listConfigMaps)
	m.HandleFunc("GET /api/v1/namespaces/{namespace}/configmaps", s.listConfigMaps)
	m.HandleFunc("POST /api/v1/namespaces/{namespace}/configmaps", s.createConfigMap)
	m.HandleFunc("GET /api/v1/namespaces/{namespace}/configmaps/{name}", s.getConfigMap)
	m.HandleFunc("PUT /api/v1/namespaces/{namespace}/configmaps/{name}", s.replaceConfigMap)
	m.HandleFunc("PATCH /api/v1/namespaces/{namespace}/configmaps/{name}", s.patchConfigMap)
	m.HandleFunc("DELETE /api/v1/namespaces/{namespace}/configmaps/{name}", s.deleteConfigMap)

	m.HandleFunc("GET /api/v1/namespaces", s.listNamespaces)
	m.HandleFunc("POST /api/v1/namespaces", s.createNamespace)
	m.HandleFunc("GET /api/v1/namespaces/{name}", s.getNamespace)
	m.HandleFunc("PUT /api/v1/namespaces/{name}", s.replaceNamespace)
	m.HandleFunc("PATCH /api/v1/namespaces/{name}", s.patchNamespace)
	m.HandleFunc("DELETE /api/v1/namespaces/{name}", s.deleteNamespace)

	m.HandleFunc("GET /apis/"+coordinationGroup, s.coordinationGroupInfo)
	m.HandleFunc("GET /apis/"+coordinationGroup+"/v1", s.coordinationResources)
	leases := "/apis/" + coordinationGroup + "/v1/namespaces/{namespace}/leases"
	m.HandleFunc("GET /apis/"+coordinationGroup+"/v1/leases", s.listLeases)
	m.HandleFunc("GET "+leases, s.listLeases)
	m.HandleFunc("POST "+leases, s.createLease)
	m.HandleFunc("GET "+leases+"/{name}", s.getLease)
	m.HandleFunc("PUT "+leases+"/{name}", s.replaceLease)
	m.HandleFunc("PATCH "+leases+"/{name}", s.patchLease)
	m.HandleFunc("DELETE "+leases+"/{name}", s.deleteLease)

	herd := "/apis/" + herdGroup + "/" + herdVersion
	m.HandleFunc("GET "+herd+"/devicebindings", s.listDeviceBindings)
	m.HandleFunc("GET "+herd+"/devicebindings/{name}", s.getDeviceBinding)
	m.HandleFunc("DELETE "+herd+"/devicebindings/{name}", s.releaseDeviceBinding)
	m.HandleFunc("GET "+herd+"/auditevents", s.listAuditEvents)
	m.HandleFunc("GET "+herd+"/nodes/{name}/timeline", s.nodeTimeline)
	m.HandleFunc("PUT "+herd+"/nodes/{name}/registration", s.registerAgent)
	m.HandleFunc("DELETE "+herd+"/nodes/{name}/registration", s.deregisterAgent)
	m.HandleFunc("POST "+herd+"/nodes/{name}/heartbeat", s.agentHeartbeat)
	m.HandleFunc("POST "+herd+"/nodes/{name}/drain", s.drainNode)
	m.HandleFunc("DELETE "+herd+"/nodes/{name}/drain", s.undrainNode)
	m.HandleFunc("POST "+herd+"/nodes/{name}/taints", s.taintNode)
	m.HandleFunc("DELETE "+herd+"/nodes/{name}/taints/{key...}", s.untaintNode)
	m.HandleFunc("GET "+herd+"/kubelettargets", s.listKubeletTargets)
	m.HandleFunc("GET "+herd+"/kubelettargets/{name}", s.getKubeletTarget)
	m.HandleFunc("PUT "+herd+"/kubelettargets/{name}", s.putKubeletTarget)
	m.HandleFunc("DELETE "+herd+"/kubelettargets/{name}", s.deleteKubeletTarget)
	m.HandleFunc("POST "+herd+"/namespaces/{namespace}/pods/{name}/termination", s.recordTermination)
	s.metricsRoutes(m)
	s.selfReviewRoutes(m)
	s.unservedRoutes(m)

	m.HandleFunc("/", s.notFound)
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

// Flush passes flushes through, for streaming responses.
func (r *statusRecorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap lets http.ResponseController reach the connection, which
// long-lived watches need to lift the server's deadlines.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
