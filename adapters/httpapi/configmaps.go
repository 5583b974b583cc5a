package httpapi

import (
	"fmt"
	"net/http"

	"github.com/google/uuid"
	corev1 "k8s.io/api/core/v1"

	"herd/adapters/conversions"
	"herd/domain"
)

// listConfigMaps serves GET /api/v1/configmaps (every namespace) and
// GET /api/v1/namespaces/{namespace}/configmaps, with labelSelector and a
// fieldSelector on metadata.name and metadata.namespace.
// listConfigMaps lists or, with ?watch=true, watches ConfigMaps, across
// namespaces or in one, through the shared list and watch helpers.
func (s *Server) listConfigMaps(w http.ResponseWriter, r *http.Request) {
	s.serveCollection(w, r, s.resource("configmaps"))
}

func (s *Server) getConfigMap(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	c, err := s.ConfigMapView.Get(r.Context(), ns, name)
	if err != nil {
		s.writeError(w, err, "ConfigMap", name)
		return
	}
	kc := conversions.ConfigMapToAPI(c)
	if wantsTable(w) {
		t := s.configMapTable([]corev1.ConfigMap{kc}, kc.ResourceVersion, r)
		s.writeObject(w, http.StatusOK, &t)
		return
	}
	s.writeObject(w, http.StatusOK, &kc)
}

// createConfigMap is POST /api/v1/namespaces/{namespace}/configmaps, as
// `kubectl create configmap` sends it.
func (s *Server) createConfigMap(w http.ResponseWriter, r *http.Request) {
	ns := r.PathValue("namespace")
	in, err := s.decodeConfigMap(r, ns, "")
	if err != nil {
		s.writeError(w, err, "ConfigMap", in.Name)
		return
	}
	if err := s.acceptsObjects(r.Context(), corev1.Resource("configmaps"), ns, in.Name); err != nil {
		s.writeError(w, err, "ConfigMap", in.Name)
		return
	}
	cmd := domain.CreateConfigMap{Namespace: ns, Name: in.Name, UID: uuid.NewString(), Content: conversions.ConfigMapFromAPI(in)}
	c, err := s.ConfigMaps.Execute(r.Context(), domain.Key{Namespace: ns, Name: in.Name}, cmd)
	if err != nil {
		s.writeError(w, err, "ConfigMap", in.Name)
		return
	}
	s.writeConfigMap(w, http.StatusCreated, c)
}

// replaceConfigMap is PUT, as `kubectl replace` and `kubectl edit` send
// it: the whole new ConfigMap, conditional on its resourceVersion when it
// carries one.
func (s *Server) replaceConfigMap(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	in, err := s.decodeConfigMap(r, ns, name)
	if err != nil {
		s.writeError(w, err, "ConfigMap", name)
		return
	}
	rv, err := preconditionVersion(in.ResourceVersion)
	if err != nil {
		s.writeError(w, err, "ConfigMap", name)
		return
	}
	cmd := domain.UpdateConfigMap{Content: conversions.ConfigMapFromAPI(in), ResourceVersion: rv}
	c, err := s.ConfigMaps.Execute(r.Context(), domain.Key{Namespace: ns, Name: name}, cmd)
	if err != nil {
		s.writeError(w, err, "ConfigMap", name)
		return
	}
	s.writeConfigMap(w, http.StatusOK, c)
}

// patchConfigMap is PATCH with a JSON merge, strategic merge or JSON
// patch, applied to the ConfigMap inside the write's own transaction.
func (s *Server) patchConfigMap(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	patch, ct, err := objectPatch(r)
	if err != nil {
		s.writeError(w, err, "ConfigMap", name)
		return
	}
	cmd := domain.PatchConfigMap{Apply: configMapPatcher(ct, patch, strictFields(r))}
	c, err := s.ConfigMaps.Execute(r.Context(), domain.Key{Namespace: ns, Name: name}, cmd)
	if err != nil {
		s.writeError(w, err, "ConfigMap", name)
		return
	}
	s.writeConfigMap(w, http.StatusOK, c)
}

// deleteConfigMap is DELETE, with DeleteOptions' resourceVersion
// precondition when the body carries one.
func (s *Server) deleteConfigMap(w http.ResponseWriter, r *http.Request) {
	ns, name := r.PathValue("namespace"), r.PathValue("name")
	rv, err := deletePrecondition(r)
	if err != nil {
		s.writeError(w, err, "ConfigMap", name)
		return
	}
	cmd := domain.DeleteConfigMap{ResourceVersion: rv}
	if _, err := s.ConfigMaps.Execute(r.Context(), domain.Key{Namespace: ns, Name: name}, cmd); err != nil {
		s.writeError(w, err, "ConfigMap", name)
		return
	}
	s.writeStatus(w, successStatus("configmaps", name))
}

// decodeConfigMap reads a ConfigMap body for namespace ns and, on a PUT,
// the name in the path. fieldValidation=Strict (kubectl's default) refuses
// fields a ConfigMap does not have, as kube-apiserver does.
func (s *Server) decodeConfigMap(r *http.Request, ns, name string) (corev1.ConfigMap, error) {
	var in corev1.ConfigMap
	if err := refuseDryRun(r); err != nil {
		return in, err
	}
	if err := decodeObject(r, &in); err != nil {
		return in, err
	}
	return in, pathIdentity(&in.ObjectMeta, ns, name)
}

// refuseDryRun answers ?dryRun= with 400: herd has no dry run, and a
// request that asked for one must not change anything.
func refuseDryRun(r *http.Request) error {
	if v := r.URL.Query()["dryRun"]; len(v) > 0 {
		return badRequest("dryRun=%s: herd does not support server-side dry run; nothing was changed", fmt.Sprint(v))
	}
	return nil
}
