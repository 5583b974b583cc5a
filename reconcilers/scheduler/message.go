package scheduler

import (
	"fmt"
	"sort"
	"strings"
)

// noNodesMessage is the Kubernetes scheduler's ErrNoNodesAvailable: what a
// pod is told when there is no node at all to consider.
const noNodesMessage = "no nodes available to schedule pods"

// unschedulableMessage says why none of total nodes took a pod, as the
// Kubernetes scheduler's FitError does: "0/5 nodes are available: " and
// each reason with the number of nodes that gave it, as "count reason",
// sorted as strings (so "10 ..." comes before "2 ..."), joined by ", ",
// ending in a full stop. A node may give more than one reason (short of
// both CPU and memory), so the counts can add up to more than total.
func unschedulableMessage(total int, reasons map[string]int) string {
	if total == 0 {
		return noNodesMessage
	}
	counted := make([]string, 0, len(reasons))
	for reason, n := range reasons {
		counted = append(counted, fmt.Sprintf("%d %s", n, reason))
	}
	sort.Strings(counted)
	msg := fmt.Sprintf("0/%d nodes are available", total)
	if len(counted) == 0 {
		return msg + "."
	}
	return msg + ": " + strings.Join(counted, ", ") + "."
}
