package main

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"

	"herd/adapters/conversions"
	"herd/domain"
)

// nodeOpCmds are the commands that change a node: cordon, uncordon, taint,
// untaint, drain and undrain. server is the parent's --server flag.
func nodeOpCmds(server *string) []*cobra.Command {
	schedulable := func(use, short, verb string, unschedulable bool) *cobra.Command {
		return &cobra.Command{
			Use: use + " NAME", Short: short, Args: cobra.ExactArgs(1),
			RunE: func(cmd *cobra.Command, args []string) error {
				c, err := newClient(cmd, *server)
				if err != nil {
					return reportErr(cmd, err)
				}
				patch := map[string]any{"spec": map[string]any{"unschedulable": unschedulable}}
				if err := c.do(cmd.Context(), "PATCH", "/api/v1/nodes/"+url.PathEscape(args[0]), nil, "application/merge-patch+json", patch, nil); err != nil {
					return reportErr(cmd, err)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "node/%s %s\n", args[0], verb)
				return nil
			},
		}
	}
	taint := &cobra.Command{
		Use: "taint NAME key=value:Effect", Short: "Put a taint on a node (Effect: NoSchedule, PreferNoSchedule or NoExecute)",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			t, err := parseTaint(args[1])
			if err != nil {
				return reportErr(cmd, err)
			}
			c, err := newClient(cmd, *server)
			if err != nil {
				return reportErr(cmd, err)
			}
			if err := c.do(cmd.Context(), "POST", "/apis/herd.dev/v1/nodes/"+url.PathEscape(args[0])+"/taints", nil, "", t, nil); err != nil {
				return reportErr(cmd, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "node/%s tainted\n", args[0])
			return nil
		},
	}
	untaint := &cobra.Command{
		Use: "untaint NAME key[:Effect]", Short: "Remove a node's taints with a key (of one effect, when given)",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			key, effect, _ := strings.Cut(strings.TrimSuffix(args[1], "-"), ":")
			c, err := newClient(cmd, *server)
			if err != nil {
				return reportErr(cmd, err)
			}
			q := url.Values{}
			if effect != "" {
				q.Set("effect", effect)
			}
			if err := c.do(cmd.Context(), "DELETE", "/apis/herd.dev/v1/nodes/"+url.PathEscape(args[0])+"/taints/"+key, q, "", nil, nil); err != nil {
				return reportErr(cmd, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "node/%s untainted\n", args[0])
			return nil
		},
	}
	var grace int64
	var timeout time.Duration
	drain := &cobra.Command{
		Use:   "drain NAME",
		Short: "Cordon a node and evict every pod on it, then wait until it holds none (Drained)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient(cmd, *server)
			if err != nil {
				return reportErr(cmd, err)
			}
			body := map[string]any{}
			if grace >= 0 {
				body["gracePeriodSeconds"] = grace
			}
			name := args[0]
			if err := c.do(cmd.Context(), "POST", "/apis/herd.dev/v1/nodes/"+url.PathEscape(name)+"/drain", nil, "", body, nil); err != nil {
				return reportErr(cmd, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "node/%s draining\n", name)
			return reportErr(cmd, waitDrained(cmd, c, name, timeout))
		},
	}
	drain.Flags().Int64Var(&grace, "grace-period", -1, "seconds each pod gets to shut down; negative keeps each pod's own terminationGracePeriodSeconds")
	drain.Flags().DurationVar(&timeout, "timeout", 0, "how long to wait for the node to empty; 0 waits for ever (the drain goes on in herd either way)")
	undrain := &cobra.Command{
		Use: "undrain NAME", Short: "End a drain: uncordon the node and return it to Ready", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient(cmd, *server)
			if err != nil {
				return reportErr(cmd, err)
			}
			var before corev1.Node
			if err := c.get(cmd.Context(), "/api/v1/nodes/"+url.PathEscape(args[0]), nil, &before); err != nil {
				return reportErr(cmd, err)
			}
			if err := c.do(cmd.Context(), "DELETE", "/apis/herd.dev/v1/nodes/"+url.PathEscape(args[0])+"/drain", nil, "", nil, nil); err != nil {
				return reportErr(cmd, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "node/%s %s\n", args[0], undrained(before))
			return nil
		},
	}
	return []*cobra.Command{
		schedulable("cordon", "Mark a node unschedulable: it gets no new pods", "cordoned", true),
		schedulable("uncordon", "Mark a node schedulable again", "uncordoned", false),
		taint, untaint, drain, undrain,
	}
}

// undrained says what undrain did to a node that was as before: ended its
// drain, uncordoned it (a node only cordoned: kubectl drain cordons the
// node and evicts its pods itself, leaving no drain of herd's to end), or
// nothing — said as kubectl uncordon says "already uncordoned", and not
// an error.
func undrained(before corev1.Node) string {
	switch domain.AgentState(before.Annotations[conversions.AnnotationAgentState]) {
	case domain.AgentDraining, domain.AgentDrained:
		return "undrained"
	}
	if before.Spec.Unschedulable {
		return "uncordoned (it had been cordoned, as kubectl drain leaves a node; herd had no drain of its own to end)"
	}
	return "already undrained: it was not draining"
}

// parseTaint reads kubectl's taint syntax, key[=value]:Effect.
func parseTaint(s string) (map[string]string, error) {
	kv, effect, ok := strings.Cut(s, ":")
	if !ok || effect == "" {
		return nil, fmt.Errorf("taint %q: want key=value:Effect or key:Effect", s)
	}
	key, value, _ := strings.Cut(kv, "=")
	return map[string]string{"key": key, "value": value, "effect": effect}, nil
}

// waitDrained polls the node until herd reports it Drained, or the
// timeout (0: none) passes, saying how many pods remain.
func waitDrained(cmd *cobra.Command, c *client, name string, timeout time.Duration) error {
	start := time.Now() // the operator's wall clock: how long this command waits
	for {
		var n corev1.Node
		if err := c.get(cmd.Context(), "/api/v1/nodes/"+url.PathEscape(name), nil, &n); err != nil {
			return err
		}
		if n.Annotations[conversions.AnnotationAgentState] == string(domain.AgentDrained) {
			fmt.Fprintf(cmd.OutOrStdout(), "node/%s drained\n", name)
			return nil
		}
		if timeout > 0 && time.Since(start) > timeout {
			var pods corev1.PodList
			q := url.Values{"fieldSelector": {"spec.nodeName=" + name}}
			if err := c.get(cmd.Context(), "/api/v1/pods", q, &pods); err != nil {
				return err
			}
			return fmt.Errorf("node %s is still draining after %s: %d pod(s) remain; herd goes on draining it", name, timeout, len(pods.Items))
		}
		select {
		case <-cmd.Context().Done():
			return cmd.Context().Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
}
