package domain

import "time"

// PodFrom is a command made from the pod as it stands inside the unit of
// work, as NodeFrom is for nodes: a patch, or a status a runtime reports
// only if the pod is still as it was. A nil command is nothing to do.
type PodFrom func(Pod) (PodCommand, error)

func (f PodFrom) decidePod(p Pod, now time.Time) ([]Event, error) {
	cmd, err := f(p)
	if err != nil || cmd == nil {
		return nil, err
	}
	return DecidePod(p, cmd, now)
}
