package domain

// Creation is a command that only creates its aggregate: decided on an
// aggregate that exists, it is refused with ErrAlreadyExists, never
// applied. The command layer decides such a command on an aggregate it
// remembers nothing of as new, without reading it, since the commit
// refuses the creation of one that exists and the command is then
// decided again on the aggregate as it stands (ARCHITECTURE.md, "Where
// the serial section is"). A registration that records a restart, or a
// command that creates or updates, is not one: decided on a node that
// exists, it does something else.
type Creation interface {
	// CreatesOnly says whether this command is one.
	CreatesOnly() bool
}

var (
	_ Creation = RegisterNode{}
	_ Creation = NodeSequence{}
	_ Creation = CreateLease{}
)

// CreatesOnly implements Creation: a registration that fails if the node
// exists (the Kubernetes create) is one.
func (c RegisterNode) CreatesOnly() bool { return c.FailIfExists }

// CreatesOnly implements Creation: a sequence is one when its first
// command is, which refuses it whole on a node that exists.
func (s NodeSequence) CreatesOnly() bool {
	if len(s) == 0 {
		return false
	}
	c, ok := s[0].(Creation)
	return ok && c.CreatesOnly()
}

// CreatesOnly implements Creation.
func (CreateLease) CreatesOnly() bool { return true }
