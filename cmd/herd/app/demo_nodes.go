package app

import "fmt"

// demoNode is the name and kind of the demo's i-th simulated node: linux,
// illumos and rp2040 in turn.
func demoNode(i int) (name, kind string) {
	kinds := []string{"linux", "illumos", "rp2040"}
	kind = kinds[i%len(kinds)]
	return fmt.Sprintf("demo-%s-%02d", kind, i), kind
}
