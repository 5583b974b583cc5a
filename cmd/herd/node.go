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
)

func newNodeCmd() *cobra.Command {
	var server, output, selector string
	cmd := &cobra.Command{Use: "node", Short: "Inspect the fleet's nodes, cordon, taint and drain them"}
	addServerFlag(cmd, &server)
	list := &cobra.Command{
		Use:   "list",
		Short: "List nodes: NAME, STATUS, KIND, AGE, VERSION and the conditions that are true",
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
			if err := c.get(cmd.Context(), "/api/v1/nodes", q, &nl); err != nil {
				return reportErr(cmd, err)
			}
			if done, err := printStructured(cmd.OutOrStdout(), output, nl); done {
				return reportErr(cmd, err)
			}
			printNodes(cmd.OutOrStdout(), nl.Items, time.Now())
			return nil
		},
	}
	list.Flags().StringVarP(&selector, "selector", "l", "", "label selector, as kubectl's -l")
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
			if err := c.get(cmd.Context(), "/api/v1/nodes/"+url.PathEscape(args[0]), nil, &n); err != nil {
				return reportErr(cmd, err)
			}
			if done, err := printStructured(cmd.OutOrStdout(), output, n); done {
				return reportErr(cmd, err)
			}
			printNodes(cmd.OutOrStdout(), []corev1.Node{n}, time.Now())
			return nil
		},
	}
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
			fmt.Fprintln(tw, "TIME\tEVENT\tREASON\tMESSAGE")
			for _, e := range tl.Items {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.At.Format(time.RFC3339), e.Kind, dash(e.Reason), e.Message)
			}
			return tw.Flush()
		},
	}
	for _, c := range []*cobra.Command{list, get, events} {
		c.Flags().StringVarP(&output, "output", "o", "", "json or yaml")
	}
	cmd.AddCommand(list, get, events)
	cmd.AddCommand(nodeOpCmds(&server)...)
	return cmd
}

// printNodes prints the kubectl-like table.
func printNodes(w io.Writer, nodes []corev1.Node, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSTATUS\tKIND\tAGE\tVERSION\tCONDITIONS")
	for _, n := range nodes {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", n.Name, httpapi.NodeStatus(&n), dash(n.Labels[conversions.LabelKind]),
			duration.HumanDuration(now.Sub(n.CreationTimestamp.Time)), dash(n.Status.NodeInfo.KubeletVersion), trueConditions(n))
	}
	_ = tw.Flush()
}

// trueConditions lists the conditions other than Ready that hold.
func trueConditions(n corev1.Node) string {
	var out []string
	for _, c := range n.Status.Conditions {
		if c.Type != corev1.NodeReady && c.Status == corev1.ConditionTrue {
			out = append(out, string(c.Type))
		}
	}
	if len(out) == 0 {
		return "<none>"
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
