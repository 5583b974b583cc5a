package httpapi

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/adapters/kubelet"
	"herd/domain"
	"herd/projections"
)

// KubeletTarget is a kubelet herd polls, as herd's API shows it:
// /apis/herd.dev/v1/kubelettargets/{name}, the name being the node's.
type KubeletTarget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              KubeletTargetSpec   `json:"spec"`
	Status            KubeletTargetStatus `json:"status"`
}

// KubeletTargetSpec is where the kubelet listens and how herd proves who
// it is; see domain.KubeletTarget for each field.
type KubeletTargetSpec struct {
	URL                string `json:"url"`
	CAFile             string `json:"caFile,omitempty"`
	CAData             string `json:"caData,omitempty"`
	ClientCertFile     string `json:"clientCertFile,omitempty"`
	ClientKeyFile      string `json:"clientKeyFile,omitempty"`
	BearerTokenFile    string `json:"bearerTokenFile,omitempty"`
	InsecureSkipVerify bool   `json:"insecureSkipVerify,omitempty"`
}

// KubeletTargetStatus says where the target was declared: "config"
// (herd's --kubelet or --kubelet-config, which the API cannot change) or
// "api".
type KubeletTargetStatus struct {
	Source string `json:"source"`
}

// KubeletTargetList is every kubelet herd polls.
type KubeletTargetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata"`
	Items           []KubeletTarget `json:"items"`
}

const kindKubeletTarget = "KubeletTarget"

func (s *Server) kubeletTargetView() *projections.KubeletTargetView {
	return s.KubeletTargetView
}

// kubeletTargetKind serves the kubelets herd polls (herd.dev, JSON only).
func (s *Server) kubeletTargetKind() *kind {
	return &kind{gv: herdGV, resource: "kubelettargets", singular: "kubelettarget", name: "KubeletTarget",
		verbs: verbs{list: s.listKubeletTargets, get: s.getKubeletTarget, update: s.putKubeletTarget, delete: s.deleteKubeletTarget}}
}

func (s *Server) listKubeletTargets(w http.ResponseWriter, r *http.Request) {
	ts, head, err := s.kubeletTargetView().Targets(r.Context())
	if err != nil {
		s.writeError(w, err, kindKubeletTarget, "")
		return
	}
	list := KubeletTargetList{
		TypeMeta: metav1.TypeMeta{Kind: "KubeletTargetList", APIVersion: herdGroup + "/" + herdVersion},
		ListMeta: metav1.ListMeta{ResourceVersion: strconv.FormatInt(head, 10)},
		Items:    []KubeletTarget{},
	}
	for _, name := range sortedTargetNames(ts) {
		list.Items = append(list.Items, toKubeletTarget(ts.Targets[name]))
	}
	s.writeJSON(w, http.StatusOK, list)
}

func (s *Server) getKubeletTarget(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	t, err := s.kubeletTargetView().Get(r.Context(), name)
	if err != nil {
		s.writeError(w, err, kindKubeletTarget, name)
		return
	}
	s.writeJSON(w, http.StatusOK, toKubeletTarget(t))
}

// putKubeletTarget adds a target or replaces one the API added: 201 when
// it is new, 200 otherwise. Unknown fields are refused, so that a
// misspelt TLS setting is never silently dropped; so are files herd cannot
// read. metadata.resourceVersion, when given, must be the target's.
func (s *Server) putKubeletTarget(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	in, err := decodeKubeletTarget(r)
	if err != nil {
		s.writeError(w, err, kindKubeletTarget, name)
		return
	}
	if in.Name == "" {
		in.Name = name
	}
	if in.Name != name {
		s.writeError(w, badRequest("metadata.name %q does not match the kubelet target %q in the path", in.Name, name), kindKubeletTarget, name)
		return
	}
	var rv int64
	if in.ResourceVersion != "" {
		if rv, err = strconv.ParseInt(in.ResourceVersion, 10, 64); err != nil {
			s.writeError(w, badRequest("metadata.resourceVersion %q is not a log position", in.ResourceVersion), kindKubeletTarget, name)
			return
		}
	}
	t := domain.KubeletTarget{
		Name: name, URL: in.Spec.URL, CAFile: in.Spec.CAFile, CAData: in.Spec.CAData,
		ClientCertFile: in.Spec.ClientCertFile, ClientKeyFile: in.Spec.ClientKeyFile,
		BearerTokenFile: in.Spec.BearerTokenFile, InsecureSkipVerify: in.Spec.InsecureSkipVerify,
		Source: domain.SourceAPI,
	}
	if err := checkTargetFiles(t, s.cfg.KubeletTokenDir); err != nil {
		s.writeError(w, err, kindKubeletTarget, name)
		return
	}
	repo := s.KubeletTargets
	_, gerr := s.KubeletTargetView.Get(r.Context(), name) // 201 or 200: whether the target was there before
	existed := gerr == nil
	ts, err := repo.Execute(r.Context(), domain.Key{}, domain.SetKubeletTarget{Target: t, ResourceVersion: rv})
	if err != nil {
		s.writeError(w, err, kindKubeletTarget, name)
		return
	}
	code := http.StatusOK
	if !existed {
		code = http.StatusCreated
	}
	s.writeJSON(w, code, toKubeletTarget(ts.Targets[name]))
}

// deleteKubeletTarget removes a target the API added; herd stops polling
// the kubelet and stops its node.
func (s *Server) deleteKubeletTarget(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	repo := s.KubeletTargets
	if _, err := repo.Execute(r.Context(), domain.Key{}, domain.RemoveKubeletTarget{Name: name}); err != nil {
		s.writeError(w, err, kindKubeletTarget, name)
		return
	}
	s.writeJSON(w, http.StatusOK, metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusSuccess,
		Details:  &metav1.StatusDetails{Name: name, Group: herdGroup, Kind: "kubelettargets"},
	})
}

// decodeKubeletTarget reads a KubeletTarget strictly.
func decodeKubeletTarget(r *http.Request) (KubeletTarget, error) {
	var in KubeletTarget
	data, err := readBody(r)
	if err != nil {
		return in, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		return in, badRequest("the request body is not a valid KubeletTarget: %v", err)
	}
	return in, cleanText(&in)
}

// checkTargetFiles names every file of t that herd cannot read or that
// does not hold what it should, together with every other problem the
// domain finds, as one InvalidError. Relative paths are the domain's to
// refuse. The bearer token file must lie inside tokenDir
// (--kubelet-token-dir), symbolic links followed; with no tokenDir none
// is allowed: herd would send what it read to the URL the client chose.
func checkTargetFiles(t domain.KubeletTarget, tokenDir string) error {
	var fields []domain.FieldError
	if err := domain.ValidateKubeletTarget(t); err != nil {
		var inv *domain.InvalidError
		if !errors.As(err, &inv) {
			return err
		}
		fields = append(fields, inv.Fields...)
	}
	usable := func(p string) bool { return p != "" && filepath.IsAbs(p) }
	if usable(t.CAFile) {
		if data, err := os.ReadFile(t.CAFile); err != nil {
			fields = append(fields, domain.FieldError{Field: "spec.caFile", Value: t.CAFile, Reason: "herd cannot read it: " + unwrapPathError(err)})
		} else if !x509.NewCertPool().AppendCertsFromPEM(data) {
			fields = append(fields, domain.FieldError{Field: "spec.caFile", Value: t.CAFile, Reason: "holds no PEM certificate"})
		}
	}
	if usable(t.ClientCertFile) && usable(t.ClientKeyFile) {
		if _, err := tls.LoadX509KeyPair(t.ClientCertFile, t.ClientKeyFile); err != nil {
			fields = append(fields, domain.FieldError{Field: "spec.clientCertFile", Value: t.ClientCertFile,
				Reason: fmt.Sprintf("herd cannot load it with spec.clientKeyFile: %s", unwrapPathError(err))})
		}
	}
	if usable(t.BearerTokenFile) {
		if real, err := kubelet.ConfineTokenFile(tokenDir, t.BearerTokenFile); err != nil {
			fields = append(fields, domain.FieldError{Field: "spec.bearerTokenFile", Value: t.BearerTokenFile, Reason: err.Error()})
		} else if _, err := os.ReadFile(real); err != nil {
			fields = append(fields, domain.FieldError{Field: "spec.bearerTokenFile", Value: t.BearerTokenFile, Reason: "herd cannot read it: " + unwrapPathError(err)})
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return &domain.InvalidError{Kind: kindKubeletTarget, Name: t.Name, Fields: fields}
}

// unwrapPathError drops the path from an os error: the field already
// names it.
func unwrapPathError(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func toKubeletTarget(t domain.KubeletTarget) KubeletTarget {
	return KubeletTarget{
		TypeMeta:   metav1.TypeMeta{Kind: kindKubeletTarget, APIVersion: herdGroup + "/" + herdVersion},
		ObjectMeta: metav1.ObjectMeta{Name: t.Name, ResourceVersion: strconv.FormatInt(t.ResourceVersion, 10)},
		Spec: KubeletTargetSpec{
			URL: t.URL, CAFile: t.CAFile, CAData: t.CAData, ClientCertFile: t.ClientCertFile,
			ClientKeyFile: t.ClientKeyFile, BearerTokenFile: t.BearerTokenFile, InsecureSkipVerify: t.InsecureSkipVerify,
		},
		Status: KubeletTargetStatus{Source: string(t.Source)},
	}
}

func sortedTargetNames(ts domain.KubeletTargets) []string {
	return slices.Sorted(maps.Keys(ts.Targets))
}
