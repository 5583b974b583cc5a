package events

import "testing"

func TestCommitSignalWakesOnlyOnANewerHead(t *testing.T) {
	var s Store
	head, ch := s.CommitSignal()
	if head != 0 {
		t.Fatalf("head = %d before any commit, want 0", head)
	}
	s.Committed(5)
	select {
	case <-ch:
	default:
		t.Fatal("the signal taken before the commit was not closed by it")
	}
	head, ch = s.CommitSignal()
	if head != 5 {
		t.Fatalf("head = %d, want 5", head)
	}
	s.Committed(5)
	s.Committed(3)
	select {
	case <-ch:
		t.Fatal("a head at or below the announced one woke a follower")
	default:
	}
	s.Committed(6)
	select {
	case <-ch:
	default:
		t.Fatal("a newer head did not wake the follower")
	}
}
