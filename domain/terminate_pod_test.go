package domain

import (
	"errors"
	"testing"
)

func TestTerminationStepNames(t *testing.T) {
	for _, s := range []TerminationStep{StepShutdownRequested, StepHalted, StepStopped, StepDeprovisioned} {
		got, err := ParseTerminationStep(s.String())
		if err != nil || got != s {
			t.Errorf("%s: parsed back as %v, %v", s, got, err)
		}
	}
	for _, bad := range []string{"", "stopped", "Finalized"} {
		if _, err := ParseTerminationStep(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: %v, want ErrInvalid", bad, err)
		}
	}
	if got := TerminationStep(9).String(); got != "TerminationStep(9)" {
		t.Errorf("an unknown step reads %q", got)
	}
}
