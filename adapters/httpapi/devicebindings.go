package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"herd/domain"
)

// DeviceBinding is a device name's binding as the API shows it.
type DeviceBinding struct {
	APIVersion string    `json:"apiVersion"`
	Kind       string    `json:"kind"`
	Name       string    `json:"name"`
	Address    string    `json:"address"`
	BoundAt    time.Time `json:"boundAt"`
	// ResourceVersion is the log position of the binding's latest event.
	ResourceVersion string `json:"resourceVersion"`
}

// DeviceBindingList lists the bound device names.
type DeviceBindingList struct {
	APIVersion string          `json:"apiVersion"`
	Kind       string          `json:"kind"`
	Items      []DeviceBinding `json:"items"`
}

func toDeviceBinding(b domain.DeviceBinding) DeviceBinding {
	return DeviceBinding{
		APIVersion: herdGroup + "/" + herdVersion, Kind: "DeviceBinding",
		Name: b.Name, Address: b.Address, BoundAt: b.BoundAt,
		ResourceVersion: strconv.FormatInt(b.ResourceVersion, 10),
	}
}

// deviceBindingKind serves which device speaks for which node on the
// device listener (herd.dev, JSON only); a binding is released by a
// delete.
func (s *Server) deviceBindingKind() *kind {
	return &kind{gv: herdGV, resource: "devicebindings", singular: "devicebinding", name: "DeviceBinding",
		verbs: verbs{list: s.listDeviceBindings, get: s.getDeviceBinding, delete: s.releaseDeviceBinding}}
}

func (s *Server) listDeviceBindings(w http.ResponseWriter, r *http.Request) {
	bs, err := s.DeviceBindings.List(r.Context())
	if err != nil {
		s.writeError(w, err, "DeviceBinding", "")
		return
	}
	list := DeviceBindingList{APIVersion: herdGroup + "/" + herdVersion, Kind: "DeviceBindingList", Items: []DeviceBinding{}}
	for _, b := range bs {
		list.Items = append(list.Items, toDeviceBinding(b))
	}
	s.writeJSON(w, http.StatusOK, list)
}

func (s *Server) getDeviceBinding(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	b, err := s.DeviceBindings.Get(r.Context(), name)
	if err != nil {
		s.writeError(w, err, "DeviceBinding", name)
		return
	}
	if !b.Bound() {
		s.writeError(w, domain.ErrNotFound, "DeviceBinding", name)
		return
	}
	s.writeJSON(w, http.StatusOK, toDeviceBinding(b))
}

// releaseDeviceBinding is an admin freeing a device name from its address,
// so that the device may speak for it from a new one.
func (s *Server) releaseDeviceBinding(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	b, err := s.Devices.Execute(r.Context(), domain.Key{Name: name}, domain.ReleaseDevice{})
	if err != nil {
		s.writeError(w, err, "DeviceBinding", name)
		return
	}
	s.writeJSON(w, http.StatusOK, toDeviceBinding(b))
}
