package illumos

import (
	"errors"
	"testing"
)

func TestExecRunnerRunsRealCommands(t *testing.T) {
	r := ExecRunner{}
	out, err := r.Run(t.Context(), Command{Name: "cat", Stdin: "create -b\ncommit\n"})
	if err != nil || string(out) != "create -b\ncommit\n" {
		t.Errorf("cat with stdin: %q %v", out, err)
	}
	_, err = r.Run(t.Context(), Command{Name: "sh", Args: []string{"-c", "echo 'no such zone' >&2; exit 3"}})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != 3 || ee.Stderr != "no such zone" {
		t.Fatalf("failing command: %v, want exit 3 saying so", err)
	}
	if want := `sh -c 'echo '\''no such zone'\'' >&2; exit 3': exit status 3: no such zone`; err.Error() != want {
		t.Errorf("error %q\nwant  %q", err, want)
	}
	if _, err := r.Run(t.Context(), Command{Name: "/nonexistent/zoneadm"}); err == nil || errors.As(err, &ee) {
		t.Errorf("missing program: %v, want an error that is not an exit status", err)
	}
}
