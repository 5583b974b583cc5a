package mockruntime

import (
	"fmt"
	"strconv"
	"time"

	"herd/domain"
)

// AnnotationShutdownSeconds is, on a pod, how many whole seconds it takes
// to stop once asked to shut down; a negative value makes it ignore
// shutdown, so that only a halt stops it. Features use it to show a pod
// stopping inside its grace period, and one halted after it. It lives
// outside the herd.dev/ prefix because the API keeps that prefix for what
// herd itself writes and drops it from what clients send.
const AnnotationShutdownSeconds = "mock.herd.dev/shutdown-seconds"

// shutdownDelay reads the pod's shutdown annotation: the delay, whether the
// pod ignores shutdown, or an error naming the annotation. Without it the
// pod takes def.
func shutdownDelay(p domain.Pod, def time.Duration) (time.Duration, bool, error) {
	v, ok := p.Annotations[AnnotationShutdownSeconds]
	if !ok {
		return def, false, nil
	}
	secs, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, false, fmt.Errorf("pod %s: annotation %s %q: want whole seconds (negative to ignore shutdown)", p.Key(), AnnotationShutdownSeconds, v)
	}
	if secs < 0 {
		return 0, true, nil
	}
	return time.Duration(secs) * time.Second, false, nil
}
