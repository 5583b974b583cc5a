package main

import (
	"fmt"
	"io"
	"net/url"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"herd/adapters/conversions"
	"herd/adapters/httpapi"
	"herd/domain"
)

func newNodeCmd() *cobra.Command {
	var server, output, selector, at string
	cmd := &cobra.Command{Use: "node", Short: "Inspect the fleet's nodes, cordon, taint and drain them"}
	addServerFlag(cmd, &server)
	list := &cobra.Command{
		Use:   "list",
		Short: "List nodes: NAME, STATUS, STATE, KIND, AGE, VERSION, active/max JOBS and the conditions that signal trouble",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := newClient(cmd, server)
			if err != nil {
				return reportErr(cmd, err)
			}
			var nl corev1.NodeList
			q := url.Values{}
			if selector != "" {
				q.Set("labelSelector", selector)
			}
			moment, err := listAt(cmd, c, at, "/api/v1/nodes", q, &nl)
			if err != nil {
				return reportErr(cmd, err)
			}
			if done, err := printStructured(cmd.OutOrStdout(), output, nl); done {
				return reportErr(cmd, err)
			}
			printNodes(cmd.OutOrStdout(), nl.Items, moment, output)
			return nil
		},
	}
	list.Flags().StringVarP(&selector, "selector", "l", "", "label selector, as kubectl's -l")
	addAtFlag(list, &at)
	get := &cobra.Command{
		Use:   "get NAME",
		Short: "Show one node",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient(cmd, server)
			if err != nil {
				return reportErr(cmd, err)
			}
			var n corev1.Node
			moment := time.Now()
			if at != "" {
				var nl corev1.NodeList
				if moment, err = listAt(cmd, c, at, "/api/v1/nodes", url.Values{"fieldSelector": {"metadata.name=" + args[0]}}, &nl); err != nil {
					return reportErr(cmd, err)
				}
				if len(nl.Items) == 0 {
					return reportErr(cmd, fmt.Errorf("node %q did not exist then (--at %s)", args[0], at))
				}
				n = nl.Items[0]
			} else if err := c.get(cmd.Context(), "/api/v1/nodes/"+url.PathEscape(args[0]), nil, &n); err != nil {
				return reportErr(cmd, err)
			}
			if done, err := printStructured(cmd.OutOrStdout(), output, n); done {
				return reportErr(cmd, err)
			}
			printNodes(cmd.OutOrStdout(), []corev1.Node{n}, moment, output)
			return nil
		},
	}
	addAtFlag(get, &at)
	events := &cobra.Command{
		Use:   "events NAME",
		Short: "Show a node's lifecycle: registered, ready, restarted, conditions, stopped",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient(cmd, server)
			if err != nil {
				return reportErr(cmd, err)
			}
			var tl httpapi.NodeTimeline
			if err := c.get(cmd.Context(), "/apis/herd.dev/v1/nodes/"+url.PathEscape(args[0])+"/timeline", nil, &tl); err != nil {
				return reportErr(cmd, err)
			}
			if done, err := printStructured(cmd.OutOrStdout(), output, tl); done {
				return reportErr(cmd, err)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 8, 3, ' ', 0)
			fmt.Fprintln(tw, "TIME\tTYPE\tEVENT\tREASON\tMESSAGE")
			for _, e := range tl.Items {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", e.At.Format(time.RFC3339), dash(e.Type), e.Kind, dash(e.Reason), e.Message)
			}
			return tw.Flush()
		},
	}
	for _, c := range []*cobra.Command{list, get} {
		addOutputFlag(c.Flags(), &output, listOutputs...)
	}
	addOutputFlag(events.Flags(), &output, outputJSON, outputYAML)
	cmd.AddCommand(list, get, events, nodeDiffCmd(&server), nodeWhyCmd(&server, &output))
	cmd.AddCommand(nodeOpCmds(&server)...)
	return cmd
}

// printNodes prints the kubectl-like table (-o wide adds kubectl's wide
// columns: addresses, OS image, kernel, runtime), or -o name's node/NAME
// lines.
func printNodes(w io.Writer, nodes []corev1.Node, now time.Time, output string) {
	if output == outputName {
		names := make([]string, len(nodes))
		for i, n := range nodes {
			names[i] = n.Name
		}
		printNames(w, "node", names)
		return
	}
	wide := output == outputWide
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	header := "NAME\tSTATUS\tSTATE\tKIND\tAGE\tVERSION\tJOBS\tCONDITIONS"
	if wide {
		header += "\tINTERNAL-IP\tEXTERNAL-IP\tOS-IMAGE\tKERNEL-VERSION\tCONTAINER-RUNTIME"
	}
	fmt.Fprintln(tw, header)
	for _, n := range nodes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s", n.Name, httpapi.NodeStatus(&n), dash(n.Annotations[conversions.AnnotationAgentState]),
			dash(n.Labels[conversions.LabelKind]),
			duration.HumanDuration(now.Sub(n.CreationTimestamp.Time)), dash(n.Status.NodeInfo.KubeletVersion), jobs(n), troubleConditions(n))
		if wide {
			info := n.Status.NodeInfo
			fmt.Fprintf(tw, "\t%s\t%s\t%s\t%s\t%s", nodeAddress(n, corev1.NodeInternalIP), nodeAddress(n, corev1.NodeExternalIP),
				unknown(info.OSImage), unknown(info.KernelVersion), unknown(info.ContainerRuntimeVersion))
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
}

// nodeAddress is a node's first address of a type, or <none> as kubectl
// prints it.
func nodeAddress(n corev1.Node, t corev1.NodeAddressType) string {
	for _, a := range n.Status.Addresses {
		if a.Type == t {
			return a.Address
		}
	}
	return "<none>"
}

// unknown is s, or <unknown> as kubectl prints an empty System Info field.
func unknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

// troubleConditions lists the conditions that signal trouble
// (domain.SignalsTrouble): a True pressure (or any condition whose True is
// bad news) by its name, anything else out of its healthy status as
// TYPE=STATUS (Ready=False, ServicesHealthy=False, DiskPressure=Unknown).
func troubleConditions(n corev1.Node) string {
	var out []string
	for _, c := range n.Status.Conditions {
		t, s := domain.ConditionType(c.Type), domain.ConditionStatus(c.Status)
		switch {
		case !domain.SignalsTrouble(t, s):
		case s == domain.ConditionTrue:
			out = append(out, string(c.Type))
		default:
			out = append(out, string(c.Type)+"="+string(c.Status))
		}
	}
	if len(out) == 0 {
		return "<none>"
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// jobs is ACTIVE/MAX: the active jobs the node's agent reports (its pods
// Running, and batch Job pods Pending there) over its --max-jobs, each - when unknown (no agent metrics, no cap); - alone when
// both are.
func jobs(n corev1.Node) string {
	active, limit := n.Annotations[conversions.AnnotationActiveJobs], n.Annotations[conversions.AnnotationMaxJobs]
	if active == "" && limit == "" {
		return "-"
	}
	return dash(active) + "/" + dash(limit)
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
