package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	clocktesting "k8s.io/utils/clock/testing"
)

// tokenFileFixture is a token file on disk whose every version gets its
// own modification time: file systems stamp times at a coarse grain, and
// two writes in a row could otherwise look unchanged.
type tokenFileFixture struct {
	t     *testing.T
	path  string
	mtime time.Time
}

func newTokenFileFixture(t *testing.T, content string) *tokenFileFixture {
	f := &tokenFileFixture{t: t, path: filepath.Join(t.TempDir(), "tokens.csv"), mtime: time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)}
	f.write(content)
	return f
}

func (f *tokenFileFixture) write(content string) {
	f.t.Helper()
	if err := os.WriteFile(f.path, []byte(content), 0o600); err != nil {
		f.t.Fatal(err)
	}
	f.mtime = f.mtime.Add(time.Second)
	f.touch(f.mtime)
}

func (f *tokenFileFixture) touch(at time.Time) {
	f.t.Helper()
	if err := os.Chtimes(f.path, at, at); err != nil {
		f.t.Fatal(err)
	}
}

// accepts reports whether the authenticator takes token.
func accepts(a Authenticator, token string) bool {
	r, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "/", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	_, err := a.Authenticate(r)
	return err == nil
}

func newObservedTokenFile(t *testing.T, path string) (*ReloadingTokenFile, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.InfoLevel)
	tf, err := NewReloadingTokenFile(path, zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	return tf, logs
}

func TestReloadingTokenFileCheck(t *testing.T) {
	const before = "old-token,alice,1,herd:admins\n"
	tests := []struct {
		name string
		// change is what happens to the file between the first read and
		// the check.
		change     func(f *tokenFileFixture)
		wantTokens map[string]bool
		// wantLog is the level and message of the one line the check
		// logs, and a string its fields must hold; empty for none.
		wantLevel zapcore.Level
		wantLog   string
		wantField string
	}{
		{
			name:       "unchanged: nothing is read, nothing said",
			change:     func(*tokenFileFixture) {},
			wantTokens: map[string]bool{"old-token": true},
		},
		{
			name:       "a new token replaces the old one",
			change:     func(f *tokenFileFixture) { f.write("new-token,alice,1,herd:admins\nbob-token,bob,2,herd:viewers\n") },
			wantTokens: map[string]bool{"old-token": false, "new-token": true, "bob-token": true},
			wantLevel:  zapcore.InfoLevel, wantLog: "the token file was read again", wantField: "tokens=2",
		},
		{
			name:       "a file that no longer parses keeps the old tokens and says why",
			change:     func(f *tokenFileFixture) { f.write("new-token,alice\n") },
			wantTokens: map[string]bool{"old-token": true, "new-token": false},
			wantLevel:  zapcore.WarnLevel, wantLog: "the token file does not parse: herd keeps the tokens it had", wantField: "line 1: want token,user,uid",
		},
		{
			name: "a removed file keeps the old tokens and says why",
			change: func(f *tokenFileFixture) {
				if err := os.Remove(f.path); err != nil {
					f.t.Fatal(err)
				}
			},
			wantTokens: map[string]bool{"old-token": true},
			wantLevel:  zapcore.WarnLevel, wantLog: "the token file cannot be read: herd keeps the tokens it had", wantField: "no such file",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newTokenFileFixture(t, before)
			tf, logs := newObservedTokenFile(t, f.path)
			tt.change(f)
			tf.Check()
			for tok, want := range tt.wantTokens {
				if got := accepts(tf, tok); got != want {
					t.Errorf("token %q accepted: %v, want %v", tok, got, want)
				}
			}
			all := logs.TakeAll()
			if tt.wantLog == "" {
				if len(all) != 0 {
					t.Errorf("logged %v, want nothing", all)
				}
				return
			}
			if len(all) != 1 || all[0].Level != tt.wantLevel || all[0].Message != tt.wantLog {
				t.Fatalf("logged %v, want one %s line %q", all, tt.wantLevel, tt.wantLog)
			}
			if fields := fieldsOf(all[0]); !strings.Contains(fields, tt.wantField) {
				t.Errorf("fields %s lack %q", fields, tt.wantField)
			}
			// A second check of the same file says nothing again.
			tf.Check()
			if again := logs.TakeAll(); len(again) != 0 {
				t.Errorf("a second check of the same file logged %v", again)
			}
		})
	}
}

// fieldsOf renders a log entry's fields as key=value pairs.
func fieldsOf(e observer.LoggedEntry) string {
	var b strings.Builder
	for k, v := range e.ContextMap() {
		fmt.Fprintf(&b, "%s=%v ", k, v)
	}
	return b.String()
}

// TestReloadingTokenFileReloadReadsAnUnchangedLookingFile: SIGHUP reads
// the file even when its stat looks the same, for a file rewritten in
// place within the file system's time grain.
func TestReloadingTokenFileReloadReadsAnUnchangedLookingFile(t *testing.T) {
	f := newTokenFileFixture(t, "old-token,alice,1,herd:admins\n")
	tf, logs := newObservedTokenFile(t, f.path)
	first := f.mtime
	f.write("new-token,alice,1,herd:admins\n") // the same size
	f.touch(first)
	tf.Check()
	if accepts(tf, "new-token") {
		t.Fatal("a check took a file whose stat had not changed: the test does not show what Reload adds")
	}
	tf.Reload("SIGHUP")
	if !accepts(tf, "new-token") || accepts(tf, "old-token") {
		t.Errorf("after Reload: new-token accepted %v, old-token %v; want true, false", accepts(tf, "new-token"), accepts(tf, "old-token"))
	}
	all := logs.TakeAll()
	if len(all) != 1 || all[0].ContextMap()["why"] != "SIGHUP" {
		t.Errorf("logged %v, want one line saying why: SIGHUP", all)
	}
}

// TestReloadingTokenFileRunChecksOnItsClock: the file is looked at when
// the clock's check interval comes round, not before.
func TestReloadingTokenFileRunChecksOnItsClock(t *testing.T) {
	f := newTokenFileFixture(t, "old-token,alice,1,herd:admins\n")
	tf, _ := newObservedTokenFile(t, f.path)
	clk := clocktesting.NewFakeClock(f.mtime)
	ticker := clk.NewTicker(TokenFileCheckInterval)
	done := make(chan struct{})
	ctx := t.Context()
	go func() {
		defer close(done)
		tf.Run(ctx, ticker)
	}()
	f.write("new-token,alice,1,herd:admins\n")

	clk.Step(TokenFileCheckInterval - time.Millisecond)
	if accepts(tf, "new-token") {
		t.Fatal("the new token was taken before the check interval came round")
	}
	clk.Step(time.Millisecond)
	// The check runs on Run's goroutine: wait for it, on the wall clock.
	deadline := time.Now().Add(10 * time.Second)
	poll := time.NewTicker(2 * time.Millisecond)
	defer poll.Stop()
	for !accepts(tf, "new-token") {
		if time.Now().After(deadline) {
			t.Fatalf("the new token was not taken within 10s of the check interval")
		}
		<-poll.C
	}
	if accepts(tf, "old-token") {
		t.Error("the old token is still accepted")
	}
}
