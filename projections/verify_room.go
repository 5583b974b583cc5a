package projections

import (
	"context"
	"fmt"
	"path/filepath"

	"herd/events"
)

// verifyRoomFactor is how many times the log's size a verify's scratch
// copy may take: the copy itself, then a second set of the views (the
// live ones kept beside the rebuilt ones) and the rebuild's journal.
const verifyRoomFactor = 2

// freeBytes is the space free for an unprivileged writer on the
// filesystem holding dir, and whether it could be told; a variable so
// that a test can pretend the disk is full.
var freeBytes = diskFree

// verifyRoom refuses a verify whose scratch copy would not fit beside
// the log, naming both sizes, before anything is written.
func verifyRoom(ctx context.Context, live *events.Store, scratchPath string) error {
	size, err := live.FileSize(ctx)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	dir := filepath.Dir(scratchPath)
	free, ok := freeBytes(dir)
	need := verifyRoomFactor * size.Bytes
	if ok && free < need {
		return fmt.Errorf("verify: the scratch copy needs about %s free in %s (twice the log's %s); only %s is free: free some space, or verify on a copy elsewhere",
			mebibytes(need), dir, mebibytes(size.Bytes), mebibytes(free))
	}
	return nil
}

// mebibytes is n bytes as an operator reads it.
func mebibytes(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
