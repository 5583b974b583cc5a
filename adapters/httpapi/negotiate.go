package httpapi

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/munnerz/goautoneg"
	"go.uber.org/zap"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// output is the form a request's answer takes, chosen from its Accept
// header before anything else happens.
type output struct {
	// info is the media type and its serializers.
	info runtime.SerializerInfo
	// table renders objects as a meta.k8s.io/v1 Table, as kubectl get
	// asks (as=Table;g=meta.k8s.io;v=v1).
	table bool
	// sse streams a watch as Server-Sent Events (JSON objects), for a
	// browser's EventSource.
	sse bool
	// include is the request's includeObject: what a Table's rows carry
	// of each object (Metadata when empty, Object, or None).
	include string
}

// jsonOutput is the answer of a request that named no preference, and
// the form of errors when negotiation failed.
var jsonOutput = output{info: servedTypes[0]}

// isJSON says whether the answer is plain JSON, which herd writes from
// its cached encodings.
func (o output) isJSON() bool { return o.info.MediaType == runtime.ContentTypeJSON }

// offer is what one endpoint can answer in.
type offer struct {
	// types are the media types, in the order */* picks from.
	types []runtime.SerializerInfo
	// table says whether the endpoint renders Tables.
	table bool
	// watch says whether the request is a watch, which a browser may
	// ask to receive as Server-Sent Events.
	watch bool
}

// offerFor is what the endpoint of r answers in, from its kind: herd's
// own group only in JSON; Kubernetes' kinds in JSON, protobuf and CBOR,
// and as Tables on a get or list of a kind (or subresource) that has
// one. Paths that are no resource (discovery, health, metrics) have no
// offer and answer as they always did.
func (s *Server) offerFor(r *http.Request, ri requestInfo) (offer, bool) {
	if ri.Resource == "" {
		return offer{}, false
	}
	if ri.Group == herdGroup {
		return offer{types: jsonOnly}, true
	}
	k, ok := s.kindFor(ri.Group, ri.Resource)
	if !ok {
		return offer{}, false
	}
	o := offer{types: servedTypes}
	if ri.Verb == "get" || ri.Verb == "list" {
		o.table = k.hasTable(ri.Subresource)
		o.watch = ri.Verb == "list" && k.watch && isWatch(r)
	}
	return o, true
}

// isWatch says whether a list request asks for a watch (?watch=true or 1).
func isWatch(r *http.Request) bool {
	switch r.URL.Query().Get("watch") {
	case "true", "1":
		return true
	}
	return false
}

// negotiate picks the answer's form the way kube-apiserver does: the
// Accept header's clauses in order of preference (q, then specificity),
// each matched against the offered types in order, so that */* is JSON;
// a clause asking for a conversion herd cannot make (a Table where there
// is none, a Table in protobuf, PartialObjectMetadata, aggregated
// discovery) is passed over. When no clause fits, the answer is 406.
func negotiate(accept string, o offer) (output, error) {
	if o.watch && wantsEventStreamHeader(accept) {
		return output{info: servedTypes[0], sse: true}, nil
	}
	if accept == "" {
		return output{info: o.types[0]}, nil
	}
	for _, c := range goautoneg.ParseAccept(accept) {
		for _, info := range o.types {
			if !matches(c, info) {
				continue
			}
			if out, ok := acceptable(c.Params, info, o); ok {
				return out, nil
			}
		}
	}
	return jsonOutput, &requestError{http.StatusNotAcceptable, metav1.StatusReasonNotAcceptable,
		fmt.Sprintf("only the following media types are accepted: %s (the Accept header asked for %q)", strings.Join(mediaTypeNames(o.types), ", "), accept)}
}

// matches says whether an Accept clause names info's media type: */*,
// type/*, or the type itself.
func matches(c goautoneg.Accept, info runtime.SerializerInfo) bool {
	switch {
	case c.Type == "*" && c.SubType == "*":
		return true
	case c.Type != info.MediaTypeType:
		return false
	}
	return c.SubType == "*" || c.SubType == info.MediaTypeSubType
}

// acceptable says whether a clause's parameters can be honoured in info.
// kube-apiserver renders Tables in JSON and YAML only (a Table has no
// protobuf form); herd in JSON.
func acceptable(params map[string]string, info runtime.SerializerInfo, o offer) (output, bool) {
	out := output{info: info}
	var as, group, version string
	for k, v := range params {
		switch k {
		case "as":
			as = v
		case "g":
			group = v
		case "v":
			version = v
		case "stream":
			if v != "watch" || info.StreamSerializer == nil {
				return out, false
			}
		}
	}
	if as == "" && group == "" && version == "" {
		return out, true
	}
	if as == "Table" && group == metav1.GroupName && version == "v1" && o.table && info.MediaType == runtime.ContentTypeJSON {
		out.table = true
		return out, true
	}
	return out, false
}

// outputOf is the form negotiated for the request w answers; JSON for a
// writer that did not come through serve.
func outputOf(w http.ResponseWriter) output {
	if rec, ok := w.(*statusRecorder); ok {
		return rec.out
	}
	return jsonOutput
}

// wantsTable reports whether the answer is a server-side table, as
// kubectl get asks (Accept: application/json;as=Table;v=v1;g=meta.k8s.io).
func wantsTable(w http.ResponseWriter) bool { return outputOf(w).table }

// writeObject writes obj with code in the negotiated media type, through
// apimachinery's serializer for it; the scheme stamps obj's kind and
// apiVersion.
func (s *Server) writeObject(w http.ResponseWriter, code int, obj runtime.Object) {
	out := outputOf(w)
	// A Table is already one, and a Status (an error, a delete) is
	// answered as it is whatever the client asked, as kube-apiserver
	// answers it.
	switch obj.(type) {
	case *metav1.Table, *metav1.Status:
		out.table = false
	}
	if out.table {
		t, err := defaultTable(obj, out.include, s.Clock.Now())
		if err != nil {
			s.writeError(w, err, "", "")
			return
		}
		obj = t
	}
	buf := answerBuffers.Get().(*bytes.Buffer)
	defer putAnswerBuffer(buf)
	encode := codecs.WithoutConversion().EncoderForVersion(out.info.Serializer, nil).Encode
	if out.isJSON() {
		encode = encodeJSON
	}
	if err := encode(obj, buf); err != nil {
		s.Logger.Error("encode response", zap.String("media_type", out.info.MediaType), zap.String("type", fmt.Sprintf("%T", obj)), zap.Error(err))
		s.writeJSON(w, http.StatusInternalServerError, statusFor(fmt.Errorf("encode the answer as %s: %w", out.info.MediaType, err), "", ""))
		return
	}
	w.Header().Set("Content-Type", out.info.MediaType)
	w.WriteHeader(code)
	if _, err := w.Write(buf.Bytes()); err != nil {
		s.Logger.Debug("write response", zap.Error(err))
	}
}

// answerBuffers hold the buffers answers are encoded into before they are
// written: a fresh one grew from 64 bytes by doubling on every answer, a
// Node's several times, and each heartbeat and lease renewal is answered
// with its object.
var answerBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledAnswer is the largest buffer kept for another answer: a big
// list's buffer is left to the collector rather than held for good.
const maxPooledAnswer = 64 << 10

// putAnswerBuffer returns buf, emptied, to answerBuffers once its bytes
// were written (ResponseWriter.Write copies or sends them before it
// returns).
func putAnswerBuffer(buf *bytes.Buffer) {
	if buf.Cap() > maxPooledAnswer {
		return
	}
	buf.Reset()
	answerBuffers.Put(buf)
}
