//go:build !cgo

package events

// scratchDriver is the one SQLite driver without cgo, which refuses to
// open a database at all (see errors_nocgo.go).
const scratchDriver = "sqlite3"
