package httpapi

import (
	"errors"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"herd/domain"
)

// modified is why kube-apiserver refuses a write based on an old
// resourceVersion.
const modified = "the object has been modified; please apply your changes to the latest version and try again"

// kindError answers with the Status for err about k's object name. The
// domain's refusals become kube-apiserver's, in its words and naming the
// resource as it does (`leases.coordination.k8s.io "x" not found`), the
// same for every kind.
func (s *Server) kindError(w http.ResponseWriter, k *kind, err error, name string) {
	s.writeError(w, kindRefusal(k, err, name), k.name, name)
}

// kindRefusal is err as kube-apiserver would refuse the request on k's
// object name; err itself when it is no refusal of the domain's.
func kindRefusal(k *kind, err error, name string) error {
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		return err
	}
	gr := k.groupResource()
	switch {
	case errors.Is(err, domain.ErrNotFound) && name != "":
		return apierrors.NewNotFound(gr, name)
	case errors.Is(err, domain.ErrAlreadyExists):
		return apierrors.NewAlreadyExists(gr, name)
	case errors.Is(err, domain.ErrConflict):
		return apierrors.NewConflict(gr, name, errors.New(modified))
	case errors.Is(err, domain.ErrForbidden):
		return forbiddenOf(gr, name, err)
	}
	return err
}

// forbiddenOf is the domain's refusal err of gr's object name as
// kube-apiserver's 403, in its words (`pods "x" is forbidden: why`), with
// the cause a namespace being deleted gives.
func forbiddenOf(gr schema.GroupResource, name string, err error) *apierrors.StatusError {
	why := strings.TrimSuffix(err.Error(), ": "+domain.ErrForbidden.Error())
	if _, after, ok := strings.Cut(why, " is forbidden: "); ok {
		why = after
	}
	refusal := apierrors.NewForbidden(gr, name, errors.New(why))
	addNamespaceCause(&refusal.ErrStatus, err)
	return refusal
}
