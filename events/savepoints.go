package events

// savepoints keeps, for a transaction, the newest position it appended
// and will commit: a rollback to a savepoint gives back the positions
// appended since, and a commit announces only what it kept, so that no
// follower is told of a head that never came (it would then sleep
// through the commit that does).
type savepoints struct {
	last  int64
	marks []int64 // last at each open savepoint, innermost last
}

// appended notes that the transaction appended up to pos.
func (s *savepoints) appended(pos int64) { s.last = max(s.last, pos) }

func (s *savepoints) mark() { s.marks = append(s.marks, s.last) }

func (s *savepoints) undo() {
	if n := len(s.marks); n > 0 {
		s.last = s.marks[n-1]
	}
}

func (s *savepoints) forget() {
	if n := len(s.marks); n > 0 {
		s.marks = s.marks[:n-1]
	}
}
