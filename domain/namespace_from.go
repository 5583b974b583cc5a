package domain

import "time"

// NamespaceFrom is a command made from the namespace as it stands inside
// the unit of work, as NodeFrom is for nodes. A nil command is nothing to
// do.
type NamespaceFrom func(Namespace) (NamespaceCommand, error)

func (f NamespaceFrom) decideNamespace(ns Namespace, now time.Time) ([]Event, error) {
	cmd, err := f(ns)
	if err != nil || cmd == nil {
		return nil, err
	}
	return DecideNamespace(ns, cmd, now)
}
