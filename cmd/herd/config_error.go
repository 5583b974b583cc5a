package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"go.uber.org/dig"
)

// exitConfig is the exit status of a configuration error (a bad flag or
// HERD_ variable), as for a usage error: nothing was started.
const exitConfig = 2

// configError is an operator's mistake in a flag or HERD_ variable, found
// before anything starts. main exits with exitConfig for it.
type configError struct{ err error }

func (e configError) Error() string { return e.err.Error() }
func (e configError) Unwrap() error { return e.err }

// exitCode is the status main exits with for err.
func exitCode(err error) int {
	if errors.As(err, new(configError)) {
		return exitConfig
	}
	return 1
}

// rootCause strips fx's and dig's wrapping from an error met while the app
// was built ("could not build arguments for function … failed to build …
// received non-nil error from function …"), leaving what the operator can
// act on.
func rootCause(err error) error {
	if err == nil {
		return nil
	}
	return dig.RootCause(err)
}

// printErr prints err to w as "herd: " lines, one per problem (errors.Join
// puts each on a line of its own).
func printErr(w io.Writer, err error) {
	for line := range strings.SplitSeq(err.Error(), "\n") {
		fmt.Fprintln(w, "herd:", line)
	}
}
