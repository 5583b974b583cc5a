package domain

import "fmt"

// checkResourceVersion is the optimistic-concurrency precondition of an
// update, a patch or a delete of the object name of resource (configmaps,
// namespaces, ...) at resourceVersion have: want 0 means none. It fails
// with ErrConflict and Kubernetes' message.
func checkResourceVersion(resource, name string, have, want int64) error {
	if want == 0 || want == have {
		return nil
	}
	return fmt.Errorf("operation cannot be fulfilled on %s %q: the object has been modified "+
		"(resourceVersion %d, the request was based on %d); please apply your changes to the latest version and try again: %w",
		resource, name, have, want, ErrConflict)
}
