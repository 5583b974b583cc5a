package reconcilers

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Validate checks the configuration against the names of the reconcilers
// there are, naming the flag of every wrong setting. herd serve calls it
// before it builds anything, so that a typo in --reconcilers is one line
// and exit status 2 rather than a failed start; NewManager calls it again
// with the reconcilers it was actually given.
func (c Config) Validate(names []string) error {
	var errs []error
	for _, e := range c.Enabled {
		n := strings.TrimPrefix(e, "-")
		switch {
		case e == "-*":
			errs = append(errs, errors.New(`--reconcilers: "-*" is not a thing; give an empty list to run none`))
		case n != "*" && !slices.Contains(names, n):
			errs = append(errs, fmt.Errorf("--reconcilers: no reconciler named %q (there are: %s)", n, strings.Join(names, ", ")))
		}
	}
	if c.Workers < 1 {
		errs = append(errs, fmt.Errorf("--reconciler-workers %d: want at least 1", c.Workers))
	}
	if c.MaxRetries < 0 {
		errs = append(errs, fmt.Errorf("--reconciler-max-retries %d: want 0 or more", c.MaxRetries))
	}
	return errors.Join(errs...)
}
