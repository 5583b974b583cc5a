// Command herd is the one binary of herd: the control plane (serve), the
// node side (agent), its command-line client (node, log), and the offline
// tools (replay).
package main

import (
	"errors"
	"os"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	if err := newRootCmd().Execute(); err != nil {
		if !errors.Is(err, errReported) {
			printErr(os.Stderr, err)
		}
		os.Exit(exitCode(err))
	}
}
