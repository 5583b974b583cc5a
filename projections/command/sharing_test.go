package command

import (
	"testing"
)

// TestOnlyAStateToBeSharedIsMarkedSharingWhileItsCommitLands: with
// ShareStates, a stream whose state the unit remembers (Mode.Cached),
// and so shares, is Sharing from its commit until its state is shared,
// for a command prepared or run on the leader; a stream of a kind the
// unit does not remember is never Sharing, so that a reader waiting for
// shared states (the watch hub) never waits for one that is not coming.
// Once the command is answered no stream is Sharing, and the settle
// came after the share.
func TestOnlyAStateToBeSharedIsMarkedSharingWhileItsCommitLands(t *testing.T) {
	all := map[string]Mode{"prepared": {Prepared: true}}
	for name, mode := range modes {
		all[name] = mode
	}
	for name, mode := range all {
		t.Run(name, func(t *testing.T) {
			units, _ := openUnits(t, 1)
			u, kind := units[0], counters{mode: mode}
			stream := kind.Stream("c")
			var shared, settled, sharingAtShare bool
			u.ShareStates(func(s string, _ int64, _ any) {
				shared = shared || s == stream
				sharingAtShare = u.Sharing(s)
			}, func() { settled = shared })
			atCommit, observed := false, false
			u.group.log = &observingLog{groupLog: u.group.log, check: func() {
				atCommit, observed = u.Sharing(stream), true
			}}

			if _, err := Update(t.Context(), u, kind, "c", set(1)); err != nil {
				t.Fatal(err)
			}
			if !observed {
				t.Fatal("the commit was not observed")
			}
			if atCommit != mode.Cached {
				t.Errorf("at the commit, Sharing = %v; want %v (the state is shared: %v)", atCommit, mode.Cached, mode.Cached)
			}
			if shared != mode.Cached || (shared && !sharingAtShare) {
				t.Errorf("shared %v (want %v), still Sharing while shared: %v", shared, mode.Cached, sharingAtShare)
			}
			if mode.Cached && !settled {
				t.Error("the settle did not follow the share")
			}
			if u.Sharing(stream) {
				t.Error("the stream is still Sharing once its command was answered")
			}
		})
	}
}
