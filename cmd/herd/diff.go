package main

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"net/url"
	"slices"

	"github.com/pmezard/go-difflib/difflib"
	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// newFleetCmd is herd fleet: the fleet as a whole, over time.
func newFleetCmd() *cobra.Command {
	var server, from, to string
	cmd := &cobra.Command{Use: "fleet", Short: "The fleet as a whole: what changed between two moments"}
	addServerFlag(cmd, &server)
	diff := &cobra.Command{
		Use:   "diff --from TIME [--to TIME]",
		Short: "What changed between two moments: nodes that joined or left, readiness, conditions, taints, labels, capacity, versions; pods that started, moved or ended",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := newClient(cmd, server)
			if err != nil {
				return reportErr(cmd, err)
			}
			var n1, n2 corev1.NodeList
			var p1, p2 corev1.PodList
			for _, l := range []struct {
				at   string
				path string
				out  any
			}{{from, "/api/v1/nodes", &n1}, {to, "/api/v1/nodes", &n2}, {from, "/api/v1/pods", &p1}, {to, "/api/v1/pods", &p2}} {
				if _, err := listAt(cmd, c, l.at, l.path, nil, l.out); err != nil {
					return reportErr(cmd, err)
				}
			}
			changes := append(nodeChanges(n1.Items, n2.Items), podChanges(p1.Items, p2.Items)...)
			if len(changes) == 0 {
				fmt.Fprintln(cmd.OutOrStdout(), "no change")
			}
			for _, ch := range changes {
				fmt.Fprintln(cmd.OutOrStdout(), ch)
			}
			return nil
		},
	}
	addRangeFlags(diff, &from, &to)
	cmd.AddCommand(diff)
	return cmd
}

// addRangeFlags adds --from (required) and --to (now when not given).
func addRangeFlags(cmd *cobra.Command, from, to *string) {
	cmd.Flags().StringVar(from, "from", "", "the earlier moment: an RFC 3339 time, a duration ago (2h) or a resourceVersion")
	cmd.Flags().StringVar(to, "to", "", "the later moment, as --from (default: now)")
	_ = cmd.MarkFlagRequired("from") // the flag exists
}

// nodeDiffCmd is herd node diff NAME: one node's object at two moments,
// as a unified diff of its manifests.
func nodeDiffCmd(server *string) *cobra.Command {
	var from, to string
	cmd := &cobra.Command{
		Use:   "diff NAME --from TIME [--to TIME]",
		Short: "One node's object at two moments, as a diff of its manifests",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient(cmd, *server)
			if err != nil {
				return reportErr(cmd, err)
			}
			var texts [2]string
			for i, at := range []string{from, to} {
				var nl corev1.NodeList
				if _, err := listAt(cmd, c, at, "/api/v1/nodes", url.Values{"fieldSelector": {"metadata.name=" + args[0]}}, &nl); err != nil {
					return reportErr(cmd, err)
				}
				if len(nl.Items) == 0 {
					continue // it did not exist then: the diff shows it appear or go
				}
				n := nl.Items[0]
				n.ManagedFields = nil
				data, err := yaml.Marshal(n)
				if err != nil {
					return reportErr(cmd, err)
				}
				texts[i] = string(data)
			}
			if texts[0] == "" && texts[1] == "" {
				return reportErr(cmd, fmt.Errorf("node %q existed at neither moment", args[0]))
			}
			toName := to
			if toName == "" {
				toName = "now"
			}
			return writeManifestDiff(cmd.OutOrStdout(), args[0], from, toName, texts[0], texts[1])
		},
	}
	addRangeFlags(cmd, &from, &to)
	return cmd
}

// writeManifestDiff writes the unified diff of two manifests of name.
func writeManifestDiff(w io.Writer, name, from, to, a, b string) error {
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A: difflib.SplitLines(a), B: difflib.SplitLines(b),
		FromFile: name + " at " + from, ToFile: name + " at " + to, Context: 3,
	})
	if err != nil {
		return err
	}
	if d == "" {
		d = "no change\n"
	}
	_, err = io.WriteString(w, d)
	return err
}

// nodeChanges are what changed of the nodes from before to after, in
// operator words, one line each, by node name.
func nodeChanges(before, after []corev1.Node) []string {
	was := map[string]corev1.Node{}
	for _, n := range before {
		was[n.Name] = n
	}
	is := map[string]corev1.Node{}
	for _, n := range after {
		is[n.Name] = n
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(union(was, is))) {
		a, inA := was[name]
		b, inB := is[name]
		switch {
		case !inA:
			out = append(out, fmt.Sprintf("node %s joined (%s, %s)", name, nodeKindOf(b), readyOf(b)))
			continue
		case !inB:
			out = append(out, fmt.Sprintf("node %s left (was %s)", name, readyOf(a)))
			continue
		}
		say := func(format string, args ...any) { out = append(out, fmt.Sprintf("node "+name+" "+format, args...)) }
		if a.Spec.Unschedulable != b.Spec.Unschedulable {
			say("%s", map[bool]string{true: "cordoned", false: "uncordoned"}[b.Spec.Unschedulable])
		}
		conds := func(n corev1.Node) map[string]string {
			m := map[string]string{}
			for _, c := range n.Status.Conditions {
				m[string(c.Type)] = string(c.Status)
			}
			return m
		}
		ca, cb := conds(a), conds(b)
		for _, t := range slices.Sorted(maps.Keys(union(ca, cb))) {
			if ca[t] != cb[t] {
				say("%s: %s → %s", t, dash(ca[t]), dash(cb[t]))
			}
		}
		taints := func(n corev1.Node) map[string]bool {
			m := map[string]bool{}
			for _, t := range n.Spec.Taints {
				m[t.Key+":"+string(t.Effect)] = true
			}
			return m
		}
		ta, tb := taints(a), taints(b)
		for _, t := range slices.Sorted(maps.Keys(union(ta, tb))) {
			switch {
			case !ta[t]:
				say("tainted %s", t)
			case !tb[t]:
				say("untainted %s", t)
			}
		}
		for _, k := range slices.Sorted(maps.Keys(union(a.Labels, b.Labels))) {
			va, okA := a.Labels[k]
			vb, okB := b.Labels[k]
			switch {
			case !okA:
				say("label %s=%s added", k, vb)
			case !okB:
				say("label %s removed (was %s)", k, va)
			case va != vb:
				say("label %s: %s → %s", k, va, vb)
			}
		}
		for _, r := range slices.Sorted(maps.Keys(union(a.Status.Capacity, b.Status.Capacity))) {
			qa, qb := a.Status.Capacity[r], b.Status.Capacity[r]
			if qa.Cmp(qb) != 0 {
				say("capacity %s: %s → %s", r, qa.String(), qb.String())
			}
		}
		if va, vb := a.Status.NodeInfo.KubeletVersion, b.Status.NodeInfo.KubeletVersion; va != vb {
			say("version: %s → %s", dash(va), dash(vb))
		}
	}
	return out
}

// podChanges are what changed of the pods: those that started (with
// their node), moved to another node, changed phase, or ended.
func podChanges(before, after []corev1.Pod) []string {
	key := func(p corev1.Pod) string { return p.Namespace + "/" + p.Name }
	was := map[string]corev1.Pod{}
	for _, p := range before {
		was[key(p)] = p
	}
	is := map[string]corev1.Pod{}
	for _, p := range after {
		is[key(p)] = p
	}
	var out []string
	for _, k := range slices.Sorted(maps.Keys(union(was, is))) {
		a, inA := was[k]
		b, inB := is[k]
		switch {
		case !inA:
			out = append(out, fmt.Sprintf("pod %s started on %s (%s)", k, dash(b.Spec.NodeName), b.Status.Phase))
		case !inB:
			out = append(out, fmt.Sprintf("pod %s ended (was %s on %s)", k, a.Status.Phase, dash(a.Spec.NodeName)))
		case a.Spec.NodeName != b.Spec.NodeName:
			out = append(out, fmt.Sprintf("pod %s placed: %s → %s", k, dash(a.Spec.NodeName), dash(b.Spec.NodeName)))
		case a.Status.Phase != b.Status.Phase:
			out = append(out, fmt.Sprintf("pod %s %s → %s", k, a.Status.Phase, b.Status.Phase))
		}
	}
	return out
}

// union is the keys of a and b, as a set.
func union[K cmp.Ordered, A, B any](a map[K]A, b map[K]B) map[K]struct{} {
	out := make(map[K]struct{}, len(a)+len(b))
	for k := range a {
		out[k] = struct{}{}
	}
	for k := range b {
		out[k] = struct{}{}
	}
	return out
}

// nodeKindOf is a node's herd kind, from its label.
func nodeKindOf(n corev1.Node) string { return dash(n.Labels["herd.dev/kind"]) }

// readyOf is a node's Ready condition in words.
func readyOf(n corev1.Node) string {
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			return "Ready " + string(c.Status)
		}
	}
	return "Ready unknown"
}
