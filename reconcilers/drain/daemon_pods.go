package drain

import "herd/domain"

// leftInPlace reports whether a drain leaves pod p on its node, as
// kubectl drain --ignore-daemonsets does: a DaemonSet's pod that has not
// finished. Its DaemonSet tolerates the cordon and would only make it
// again; the node is Drained with it still there. (kubectl also reads
// the DaemonSet, to evict the pods of one that is gone; herd's DaemonSet
// reconciler deletes those itself.)
func leftInPlace(p domain.Pod) bool {
	ctrl, ok := p.Controller()
	return ok && ctrl.Kind == domain.KindDaemonSet && !p.Finished()
}
