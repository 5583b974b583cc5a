package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// TestAnEmptyLogFilterIsRefused: herd log with a filter given empty
// (--caused-by "$ID" with ID unset) says which flag, and reads nothing,
// rather than printing the whole log.
func TestAnEmptyLogFilterIsRefused(t *testing.T) {
	for _, flag := range []string{"--caused-by", "--actor", "--stream", "--type", "--since", "--until"} {
		cmd := newLogCmd()
		var stderr bytes.Buffer
		cmd.SetErr(&stderr)
		cmd.SetOut(&bytes.Buffer{})
		// No herd listens here: a request would fail with another error.
		cmd.SetArgs([]string{"--server", "http://127.0.0.1:1", flag, ""})
		err := cmd.Execute()
		var ce configError
		if !errors.As(err, &ce) || !strings.Contains(stderr.String(), flag+" is empty") {
			t.Errorf("herd log %s \"\": err %v, stderr %q; want it refused naming %s", flag, err, stderr.String(), flag)
		}
	}
}
