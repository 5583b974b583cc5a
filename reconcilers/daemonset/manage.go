package daemonset

import (
	"time"

	"herd/domain"
)

// actions are what a reconcile does to a DaemonSet's pods: the nodes to
// give one, and the pods to delete; retry, when positive, is how soon a
// failed pod held back may be deleted.
type actions struct {
	create []string
	delete []domain.Pod
	retry  time.Duration
}

func (a actions) none() bool { return len(a.create) == 0 && len(a.delete) == 0 }

// wait keeps the soonest of the retries.
func (a *actions) wait(d time.Duration) {
	if d > 0 && (a.retry == 0 || d < a.retry) {
		a.retry = d
	}
}

// manage is what Kubernetes' DaemonSet controller's manage decides, node
// by node (podsShouldBeOnNode): a node that should run a pod and has
// none gets one; on a node where a pod may stay, failed pods (no more
// often than failed allows) and finished ones are deleted, and of the
// others all but the oldest (with a surge, the oldest of the current
// template and the oldest of an older one, the old one going once the
// new is available or the old is not ready); a node where no pod may
// stay loses every one.
func (r *Reconciler) manage(w world) actions {
	var a actions
	surge := w.allowsSurge()
	for _, s := range w.sites {
		switch {
		case s.shouldRun && len(s.pods) == 0:
			a.create = append(a.create, s.node.Name)
		case s.shouldContinue:
			var running []domain.Pod
			for _, p := range s.pods {
				switch {
				case p.Terminating():
				case p.Status.Phase == domain.PodFailed:
					if d := r.failed.wait(w.ds.UID+"/"+s.node.Name, w.now); d > 0 {
						a.wait(d)
						continue
					}
					a.delete = append(a.delete, p)
				case p.Status.Phase == domain.PodSucceeded:
					a.delete = append(a.delete, p)
				default:
					running = append(running, p)
				}
			}
			switch {
			case !surge && len(running) > 1:
				a.delete = append(a.delete, running[1:]...)
			case surge && len(running) == 0 && s.shouldRun:
				a.create = append(a.create, s.node.Name)
			case surge && len(running) > 1:
				a.delete = append(a.delete, w.surplus(running)...)
			}
		case len(s.pods) > 0:
			for _, p := range s.pods {
				if !p.Terminating() {
					a.delete = append(a.delete, p)
				}
			}
		}
	}
	return a
}

// surplus are the pods of running, two or more on one node oldest
// first, that a DaemonSet allowed to surge deletes: all but the oldest
// of the current template and the oldest of an older one; and of those
// two the old one when it is not ready or the new one is available.
func (w world) surplus(running []domain.Pod) []domain.Pod {
	var doomed []domain.Pod
	var newest, oldest *domain.Pod
	for i := range running {
		p := &running[i]
		switch {
		case w.updated(*p) && newest == nil:
			newest = p
		case !w.updated(*p) && oldest == nil:
			oldest = p
		default:
			doomed = append(doomed, *p)
		}
	}
	if newest != nil && oldest != nil {
		if _, ok := ready(*oldest); !ok || w.available(*newest) {
			doomed = append(doomed, *oldest)
		}
	}
	return doomed
}
