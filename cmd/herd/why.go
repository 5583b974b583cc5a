package main

import (
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/spf13/cobra"

	"herd/adapters/httpapi"
)

// nodeWhyCmd is herd node why NAME: what is wrong with the node, each
// with the chain of events that led there, from the log's causation ids.
func nodeWhyCmd(server, output *string) *cobra.Command {
	var at string
	cmd := &cobra.Command{
		Use:   "why NAME|NAMESPACE/NAME",
		Short: "Why the node is not as it should be (or was, --at): for each thing wrong, the events that led there, each with time, actor and cause",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient(cmd, *server)
			if err != nil {
				return reportErr(cmd, err)
			}
			q, err := explanationQuery(cmd, c, at, "node "+args[0])
			if err != nil {
				return reportErr(cmd, err)
			}
			var ex httpapi.NodeExplanation
			if err := c.get(cmd.Context(), "/apis/herd.dev/v1/nodes/"+url.PathEscape(args[0])+"/explanation", q, &ex); err != nil {
				return reportErr(cmd, err)
			}
			if done, err := printStructured(cmd.OutOrStdout(), *output, ex); done {
				return reportErr(cmd, err)
			}
			printExplanation(cmd.OutOrStdout(), ex.Node, ex.Items)
			return nil
		},
	}
	addAtFlag(cmd, &at)
	return cmd
}

// explanationQuery is the query of an explanation as of --at: the
// position it names, refused when the log held nothing by then.
func explanationQuery(cmd *cobra.Command, c *client, at, what string) (url.Values, error) {
	if at == "" {
		return nil, nil
	}
	pos, _, err := atPosition(cmd.Context(), c, cmd.ErrOrStderr(), at, time.Now())
	if err != nil {
		return nil, err
	}
	if pos == 0 {
		return nil, fmt.Errorf("%s did not exist at %s: the log begins later", what, at)
	}
	return url.Values{"asOf": {strconv.FormatInt(pos, 10)}}, nil
}

// podWhyCmd is herd pod why NAME: why a pod is being deleted, waits for a
// node or failed, and why it was made and bound where it is, each with
// the chain of events that led there.
func podWhyCmd(server, namespace, output *string) *cobra.Command {
	var at string
	cmd := &cobra.Command{
		Use:   "why NAME",
		Short: "Why the pod is as it is, or was (--at): being deleted, evicted, not scheduled, failed; why it was made and bound to its node; and the events that led there",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient(cmd, *server)
			if err != nil {
				return reportErr(cmd, err)
			}
			q, err := explanationQuery(cmd, c, at, "pod "+args[0])
			if err != nil {
				return reportErr(cmd, err)
			}
			var ex httpapi.PodExplanation
			ns, name := podArg(*namespace, args[0])
			if err := c.get(cmd.Context(), "/apis/herd.dev/v1/namespaces/"+url.PathEscape(ns)+"/pods/"+url.PathEscape(name)+"/explanation", q, &ex); err != nil {
				return reportErr(cmd, err)
			}
			if done, err := printStructured(cmd.OutOrStdout(), *output, ex); done {
				return reportErr(cmd, err)
			}
			printExplanation(cmd.OutOrStdout(), ex.Namespace+"/"+ex.Pod, ex.Items)
			printChains(cmd.OutOrStdout(), ex.Origin, "at")
			return nil
		},
	}
	addAtFlag(cmd, &at)
	return cmd
}

// printExplanation writes what is wrong with name and, for each, the
// event that made it so and the events that caused it.
func printExplanation(w io.Writer, name string, items []httpapi.Explanation) {
	if len(items) == 0 {
		fmt.Fprintf(w, "%s: nothing is wrong\n", name)
	}
	printChains(w, items, "since")
}

// printChains writes each item — a thing wrong ("since" when it became
// so), or how a pod came to be ("at") — with the event that made it so
// and the events that caused it.
func printChains(w io.Writer, items []httpapi.Explanation, when string) {
	for _, it := range items {
		fmt.Fprintf(w, "%s %s %s\n", it.What, when, it.Since.Format(time.RFC3339))
		for i, e := range it.Chain {
			arrow := "  because"
			if i == 0 {
				arrow = "  made so by"
			}
			fmt.Fprintf(w, "%s %s at %s by %s (%s, resourceVersion %d)", arrow, e.Type, e.RecordedAt.Format(time.RFC3339), dash(e.Actor), e.Stream, e.Position)
			if e.Says != "" {
				fmt.Fprintf(w, ": %s", e.Says)
			}
			fmt.Fprintln(w)
		}
	}
}
