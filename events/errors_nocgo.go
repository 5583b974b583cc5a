//go:build !cgo

package events

// constraintError is never true without cgo: the SQLite driver needs cgo
// and refuses to open a database at all. herd's agent, which needs no
// database, builds without cgo (for illumos hosts, say).
func constraintError(error) (constraint, trigger bool) { return false, false }

// storageError is never true without cgo, for the same reason.
func storageError(error) bool { return false }

// damaged is never true without cgo, for the same reason.
func damaged(error) bool { return false }

// LockedOut is never true without cgo, for the same reason.
func LockedOut(error) bool { return false }
