package loadgen

import (
	"context"
	"math/rand/v2"
	"net/http"
	"net/url"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The kinds of request a kubelet with a node lease sends, as the report
// names them.
const (
	kindRegister    = "node registration"
	kindLeaseRead   = "lease read"
	kindLeaseCreate = "lease creation"
	kindRenewal     = "lease renewal"
	kindStatus      = "status report"
)

const (
	// nodeLeaseDurationSeconds is the kubelet's default
	// nodeLeaseDurationSeconds.
	nodeLeaseDurationSeconds int32 = 40
	// maxLeaseUpdateRetries is the lease controller's maxUpdateRetries:
	// how many PUTs one renewal tries before falling back to reading the
	// lease afresh.
	maxLeaseUpdateRetries = 5
)

// leaseKubelet is a kubelet with a node lease, as kubelets are since
// Kubernetes 1.17: it renews its Lease in kube-node-lease at every turn,
// as the lease controller (k8s.io/component-helpers/apimachinery/lease)
// does, and reports its status only every statusEvery, as the kubelet's
// nodeStatusReportFrequency has it.
type leaseKubelet struct {
	k           *kubeletClient
	statusEvery time.Duration
	// nodes is each node's state. A node has one turn at a time, on one
	// worker, and phases follow one another: its state needs no lock.
	nodes []leaseNode
}

// leaseNode is what one kubelet remembers.
type leaseNode struct {
	// lease is its lease as herd last answered it, the base of the next
	// renewal (the lease controller's latestLease); nil until known.
	lease *coordinationv1.Lease
	// nextStatus is when it next reports its status.
	nextStatus time.Time
}

func newLeaseKubelet(k *kubeletClient, statusEvery time.Duration) *leaseKubelet {
	return &leaseKubelet{k: k, statusEvery: statusEvery, nodes: make([]leaseNode, len(k.names))}
}

// register is a kubelet's start: it registers its Node (which is its
// first status report), then its lease controller's first sync reads the
// lease, creating it if there is none. The next status report is due
// after statusEvery plus a uniformly random part of it between -1/2 and
// +1/2, as the kubelet's delayAfterNodeStatusChange draws it after a
// restart, so that a fleet started at once does not report at once.
//
// A registration herd sheds is tried again (untilAdmitted).
func (l *leaseKubelet) register(ctx context.Context, i int, s *stats) {
	o := untilAdmitted(ctx, func() outcome { return timed(ctx, s, kindRegister, func() outcome { return l.k.register(ctx, i) }) })
	if !o.acknowledged() {
		return
	}
	jitter := time.Duration(rand.Int64N(int64(l.statusEvery)+1)) - l.statusEvery/2
	l.nodes[i].nextStatus = time.Now().Add(l.statusEvery + jitter)
	l.sync(ctx, i, s)
}

// beat is a kubelet's turn: its lease renewed, and its status reported
// if that is due. A report that fails stays due, to be tried at the next
// turn, as the kubelet tries again at its next nodeStatusUpdateFrequency.
func (l *leaseKubelet) beat(ctx context.Context, i int, s *stats) {
	l.sync(ctx, i, s)
	n := &l.nodes[i]
	if ctx.Err() != nil || time.Now().Before(n.nextStatus) {
		return
	}
	if o := asClientGo(ctx, func() outcome { return timed(ctx, s, kindStatus, func() outcome { return l.k.heartbeat(ctx, i) }) }); o.acknowledged() {
		n.nextStatus = time.Now().Add(l.statusEvery)
	}
}

// sync is the lease controller's: renew from the lease last seen; failing
// that (or with none yet), read the lease afresh — creating it when herd
// has none — and renew from what was read.
func (l *leaseKubelet) sync(ctx context.Context, i int, s *stats) {
	if l.nodes[i].lease != nil && l.renew(ctx, i, s) {
		return
	}
	if created := l.ensure(ctx, i, s); !created && l.nodes[i].lease != nil {
		l.renew(ctx, i, s)
	}
}

// renew PUTs the lease last seen with renewTime now, conditional on its
// resourceVersion, up to maxLeaseUpdateRetries times: after a 409 the
// lease is read again and the next try renews that, as the lease
// controller's retryUpdateLease does.
func (l *leaseKubelet) renew(ctx context.Context, i int, s *stats) bool {
	n := &l.nodes[i]
	for range maxLeaseUpdateRetries {
		if ctx.Err() != nil || n.lease == nil {
			return false
		}
		next := n.lease.DeepCopy()
		next.TypeMeta = metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"}
		next.Spec.RenewTime = &metav1.MicroTime{Time: time.Now()}
		body, err := encodeAs(l.k.mediaType, next)
		if err != nil {
			s.recordKind(kindRenewal, outcome{err: err}, 0)
			return false
		}
		o := l.send(ctx, i, s, kindRenewal, http.MethodPut, l.leasePath(i), body)
		if o.acknowledged() {
			return true
		}
		if o.status == http.StatusConflict {
			l.ensure(ctx, i, s)
		}
		if stopped(ctx, phaseStop(ctx)) {
			return false
		}
	}
	return false
}

// ensure reads the node's lease and remembers it, creating it when herd
// has none (true then: a lease just created needs no renewal). It tries
// once: the lease controller's backoff between tries is the next turn.
func (l *leaseKubelet) ensure(ctx context.Context, i int, s *stats) bool {
	o := l.send(ctx, i, s, kindLeaseRead, http.MethodGet, l.leasePath(i), nil)
	if o.status != http.StatusNotFound {
		return false
	}
	d, name := nodeLeaseDurationSeconds, l.k.names[i]
	lease := &coordinationv1.Lease{
		TypeMeta:   metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: corev1.NamespaceNodeLease},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: &name, LeaseDurationSeconds: &d,
			RenewTime: &metav1.MicroTime{Time: time.Now()}},
	}
	body, err := encodeAs(l.k.mediaType, lease)
	if err != nil {
		s.recordKind(kindLeaseCreate, outcome{err: err}, 0)
		return false
	}
	return l.send(ctx, i, s, kindLeaseCreate, http.MethodPost, leasesPath, body).acknowledged()
}

// send sends one lease request of a kind and remembers the lease herd
// answers as the node's latest; an answer that does not decode counts as
// the request's error. A 429 is sent again after its Retry-After, as
// client-go does (asClientGo), each try recorded.
func (l *leaseKubelet) send(ctx context.Context, i int, s *stats, kind, method, path string, body []byte) outcome {
	return asClientGo(ctx, func() outcome { return l.sendOnce(ctx, i, s, kind, method, path, body) })
}

// sendOnce is one try of send.
func (l *leaseKubelet) sendOnce(ctx context.Context, i int, s *stats, kind, method, path string, body []byte) outcome {
	return timed(ctx, s, kind, func() outcome {
		o, answer := l.k.exchange(ctx, i, method, path, l.k.mediaType, body, true)
		if !o.acknowledged() {
			return o
		}
		var lease coordinationv1.Lease
		if err := decodeAs(l.k.mediaType, answer, &lease); err != nil {
			o.err = err
			return o
		}
		l.nodes[i].lease = &lease
		return o
	})
}

// leasesPath is the collection of node leases.
const leasesPath = "/apis/coordination.k8s.io/v1/namespaces/" + corev1.NamespaceNodeLease + "/leases"

func (l *leaseKubelet) leasePath(i int) string {
	return leasesPath + "/" + url.PathEscape(l.k.names[i])
}

// timed sends one request of a kind and records it in s, unless ctx
// ended first: an operator's interrupt is not herd's refusal.
func timed(ctx context.Context, s *stats, kind string, send func() outcome) outcome {
	t0 := time.Now()
	o := send()
	if ctx.Err() == nil {
		s.recordKind(kind, o, time.Since(t0))
	}
	return o
}
