package httpapi

import (
	"net/http"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
)

// scaleOf is a workload's scale subresource (NAME/scale), as kubectl
// scale and autoscalers use it: an autoscaling/v1 Scale of the workload,
// read, replaced or patched through the shared handlers; a write sets the
// number of replicas and nothing else, conditional on the Scale's
// resourceVersion when it carries one.
func scaleOf[S, C, O any, PO apiObject[O]](s *Server, w *object[S, C, O, PO], toAPI func(S) autoscalingv1.Scale,
	scale func(replicas int32, rv int64) C) subresource {
	o := &object[S, C, autoscalingv1.Scale, *autoscalingv1.Scale]{
		kind: w.kind, read: w.read, exec: w.exec, toAPI: toAPI,
		// Its workload's listing says whether there is one to scale.
		listing: w.listing,
	}
	write := func(in *autoscalingv1.Scale, rv int64) (C, error) { return scale(in.Spec.Replicas, rv), nil }
	gv := autoscalingv1.SchemeGroupVersion
	return subresource{name: "scale", object: "Scale", objectGV: &gv, verbs: verbs{
		dryRun: true,
		get:    func(rw http.ResponseWriter, r *http.Request) { o.serveGet(s, rw, r) },
		update: func(rw http.ResponseWriter, r *http.Request) { o.serveUpdate(s, rw, r, write) },
		patch:  func(rw http.ResponseWriter, r *http.Request) { o.servePatch(s, rw, r, write) },
	}}
}
