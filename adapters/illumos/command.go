package illumos

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// Command is one host command: a program, its arguments and what it reads
// on standard input (a zonecfg command file, for one).
type Command struct {
	Name  string
	Args  []string
	Stdin string
}

// String renders the command as a shell would take it, with arguments
// quoted where they need it.
func (c Command) String() string {
	parts := []string{c.Name}
	for _, a := range c.Args {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Runner runs host commands. It returns what the command wrote on
// standard output; a command that exits non-zero returns an *ExitError.
type Runner interface {
	Run(ctx context.Context, c Command) ([]byte, error)
}

// ExitError is a command that ran and failed.
type ExitError struct {
	Command Command
	Code    int
	// Stderr is what the command said, trimmed.
	Stderr string
}

func (e *ExitError) Error() string {
	if e.Stderr == "" {
		return fmt.Sprintf("%s: exit status %d", e.Command, e.Code)
	}
	return fmt.Sprintf("%s: exit status %d: %s", e.Command, e.Code, e.Stderr)
}

// ExecRunner runs commands on this host with os/exec.
type ExecRunner struct{}

var _ Runner = ExecRunner{}

// Run implements Runner.
func (ExecRunner) Run(ctx context.Context, c Command) ([]byte, error) {
	cmd := exec.CommandContext(ctx, c.Name, c.Args...)
	if c.Stdin != "" {
		cmd.Stdin = strings.NewReader(c.Stdin)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return stdout.Bytes(), nil
	case errors.As(err, &ee) && ee.Exited():
		return stdout.Bytes(), &ExitError{Command: c, Code: ee.ExitCode(), Stderr: strings.TrimSpace(stderr.String())}
	}
	return stdout.Bytes(), fmt.Errorf("%s: %w", c, err)
}
