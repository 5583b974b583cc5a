package httpapi

import (
	"context"
	"net/http"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"

	"herd/adapters/conversions"
	"herd/adapters/rp2040"
	"herd/domain"
	"herd/projections"
)

// nodeKind serves nodes (core/v1). A node registers itself with a POST
// (kubelets, Pico boards) or through herd's own registration; its status
// subresource takes its heartbeats; herd's own verbs on a node — drain,
// taints, registration, heartbeats, its timeline and metric history —
// are served under herd.dev. A PUT or PATCH of a node changes its spec (unschedulable and
// taints), labels and annotations, as kubectl cordon, taint and label do;
// the rest is ignored: status comes from the node itself.
func (s *Server) nodeKind() *kind {
	o := &object[domain.Node, domain.NodeCommand, corev1.Node, *corev1.Node]{
		kind: &kind{
			gv: corev1.SchemeGroupVersion, resource: "nodes", singular: "node", name: "Node",
			shortNames: []string{"no"},
		},
		listing: &listing[domain.Node]{
			aggregate: domain.NodeAggregate, fold: projections.FoldNode,
			rows: s.NodeView.Rows, hasView: s.NodeView != nil,
			exists: domain.Node.Exists,
			meta: func(n domain.Node) (domain.Key, int64, map[string]string) {
				return domain.Key{Name: n.Name}, n.ResourceVersion, conversions.NodeLabels(n)
			},
			// A value, not a map: the watch hub keeps one for every node.
			fields: func(n domain.Node) fields.Fields { return nodeFields{n.Name, n.Unschedulable} },
			// kube-apiserver's field labels for nodes.
			fieldLabels: []string{"metadata.name", "spec.unschedulable"},
		},
		read: func(ctx context.Context, key domain.Key) (domain.Node, error) {
			return s.NodeView.Get(ctx, key.Name)
		},
		exec:   s.Nodes,
		toAPI:  nodeToAPI,
		create: s.registerNode,
		update: func(in *corev1.Node, rv int64) (domain.NodeCommand, error) {
			cmd, err := nodeSpecChange(*in)
			return domain.RequireExists[domain.NodeCommand]{Command: ifVersion(rv, cmd)}, err
		},
		delete: func(d deletion) domain.NodeCommand {
			return ifVersion[domain.NodeCommand](d.resourceVersion, domain.DeleteNode{})
		},
		rows: nodeRows,
	}
	k := o.describe(s)
	k.nodeRule = mainGate.authorizeNodeAsNode
	k.subresources = []subresource{
		{name: "status", verbs: verbs{get: k.verbs.get, update: s.updateNodeStatus, patch: s.patchNodeStatus}, table: true},
		{name: "timeline", gv: herdGV, object: "NodeTimeline", verbs: verbs{get: s.nodeTimeline}},
		{name: "explanation", gv: herdGV, object: "NodeExplanation", verbs: verbs{get: s.nodeExplanation}},
		{name: "series", gv: herdGV, object: "NodeSeries", verbs: verbs{get: s.nodeSeries}},
		{name: "heartbeat", gv: herdGV, object: "Heartbeat", verbs: verbs{create: s.agentHeartbeat}},
		{name: "drain", gv: herdGV, verbs: verbs{dryRun: true, create: o.action(s, drainCommand), delete: o.action(s, func(*http.Request) (domain.NodeCommand, error) {
			return domain.UndrainNode{}, nil
		})}},
		{name: "taints", gv: herdGV, verbs: verbs{create: o.action(s, taintCommand), dryRun: true}},
		{name: "taints", gv: herdGV, rest: "{key...}", verbs: verbs{delete: s.untaintNode}},
		{name: "registration", gv: herdGV, verbs: verbs{update: s.registerAgent, delete: s.deregisterAgent}},
	}
	return k
}

// registerNode registers a node the Kubernetes way: a second POST of the
// same name is 409 AlreadyExists. An rp2040 node that names no capacity
// or allocatable gets an RP2040's. Conditions the node reports in its
// status are taken as its first heartbeat, in the same transaction.
func (s *Server) registerNode(in *corev1.Node, _ domain.Key) (domain.NodeCommand, error) {
	if err := conversions.ValidateNode(in); err != nil {
		return nil, err
	}
	reg := conversions.RegistrationFromAPI(*in, postedKind(*in))
	if reg.Kind == domain.KindRP2040 {
		// A board that names no resources has a Pico's: with none, the
		// scheduler would see room for any number of pods.
		if len(reg.Capacity) == 0 {
			reg.Capacity = conversions.ResourcesFromAPI(rp2040.Capacity())
		}
		if len(reg.Allocatable) == 0 {
			reg.Allocatable = reg.Capacity
		}
	}
	if reg.UID == "" {
		reg.UID = uuid.NewString()
	}
	cmds := domain.NodeSequence{domain.RegisterNode{Registration: reg, FailIfExists: true}}
	if reported := conversions.ReportedConditionsFromAPI(in.Status.Conditions); len(reported) > 0 {
		cmds = append(cmds, domain.RecordHeartbeat{Reported: reported, Thresholds: s.cfg.Thresholds})
	}
	return cmds, nil
}

// patchNodeStatus is a node's heartbeat in Kubernetes form: a merge or
// strategic-merge patch {"status":{...}}. Conditions merge by type, as a
// strategic merge does; herd stamps their times with its own clock. What
// the patch sets is checked as kube-apiserver checks a node's status (the
// rest is the node's as it stands, already checked).
func (s *Server) patchNodeStatus(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	switch ct := mediaType(r); ct {
	case "application/merge-patch+json", "application/strategic-merge-patch+json":
	default:
		s.writeError(w, unsupportedType(ct, []string{mergePatch, strategicPatch}), "Node", name)
		return
	}
	var body struct {
		Status *corev1.NodeStatus `json:"status"`
	}
	if err := decodeJSON(r, &body); err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	if body.Status == nil {
		s.writeError(w, badRequest(`the patch must be of the form {"status":{...}}`), "Node", name)
		return
	}
	if err := conversions.ValidateNodeStatus(&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: *body.Status}); err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	s.heartbeat(w, r, name, "", *body.Status)
}

// updateNodeStatus is a PUT of a node's status subresource, as
// client-go's UpdateStatus sends it: a heartbeat carrying the whole
// status, conditional on the body's resourceVersion when it has one.
func (s *Server) updateNodeStatus(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	var in corev1.Node
	if err := decodeObject(r, &in); err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	if in.Name != "" && in.Name != name {
		s.writeError(w, badRequest("the name of the object (%s) does not match the name on the URL (%s)", in.Name, name), "Node", name)
		return
	}
	if in.Name == "" {
		in.Name = name
	}
	if err := conversions.ValidateNodeStatus(&in); err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	s.heartbeat(w, r, name, in.ResourceVersion, in.Status)
}

// heartbeat records status as the node's report and answers with the
// node; rv, when set, must be the node's resourceVersion.
func (s *Server) heartbeat(w http.ResponseWriter, r *http.Request, name, rv string, status corev1.NodeStatus) {
	cmd := domain.RecordHeartbeat{Reported: conversions.ReportedConditionsFromAPI(status.Conditions), Thresholds: s.cfg.Thresholds,
		System: reportedSystem(status)}
	v, err := preconditionVersion(rv)
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	n, err := s.Nodes.Execute(r.Context(), domain.Key{Name: name}, ifVersion[domain.NodeCommand](v, cmd))
	if err != nil {
		s.writeError(w, err, "Node", name)
		return
	}
	s.writeNode(w, http.StatusOK, n)
}

// writeNode answers with n in the negotiated media type.
func (s *Server) writeNode(w http.ResponseWriter, code int, n domain.Node) {
	kn := nodeToAPI(n)
	s.writeObject(w, code, &kn)
}

// nodeToAPI renders n as a Kubernetes Node, each condition with its
// lastHeartbeatTime (a node holds a zero time for those heard with it:
// domain.Node.ConditionsHeard).
func nodeToAPI(n domain.Node) corev1.Node { return conversions.NodeToAPI(n.Heard()) }
