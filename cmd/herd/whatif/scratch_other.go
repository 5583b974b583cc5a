//go:build !linux

package whatif

import "os"

// defaultScratchRoot is the system's temporary directory: only Linux's
// shared memory tmpfs is looked for.
func defaultScratchRoot() string { return os.TempDir() }
