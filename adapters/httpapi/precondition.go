package httpapi

import "strconv"

// preconditionVersion reads a resourceVersion a client sent as the version
// its write is based on: "" is none.
func preconditionVersion(rv string) (int64, error) {
	if rv == "" {
		return 0, nil
	}
	v, err := strconv.ParseInt(rv, 10, 64)
	if err != nil || v <= 0 {
		return 0, badRequest("metadata.resourceVersion %q is not a resourceVersion herd gave out (a positive log position)", rv)
	}
	return v, nil
}
