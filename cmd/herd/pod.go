package main

import (
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/duration"

	"herd/adapters/httpapi"
)

func newPodCmd() *cobra.Command {
	var server, output, selector, fieldSel, namespace, at string
	var all bool
	cmd := &cobra.Command{Use: "pod", Short: "List, inspect and delete pods"}
	addServerFlag(cmd, &server)
	cmd.PersistentFlags().StringVarP(&namespace, "namespace", "n", "default", "the pods' namespace")
	list := &cobra.Command{
		Use: "list", Short: "List pods: NAMESPACE, NAME, STATUS, NODE, IP, AGE", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := newClient(cmd, server)
			if err != nil {
				return reportErr(cmd, err)
			}
			path := "/api/v1/namespaces/" + url.PathEscape(namespace) + "/pods"
			if all {
				path = "/api/v1/pods"
			}
			q := url.Values{}
			if selector != "" {
				q.Set("labelSelector", selector)
			}
			if fieldSel != "" {
				q.Set("fieldSelector", fieldSel)
			}
			var pl corev1.PodList
			moment, err := listAt(cmd, c, at, path, q, &pl)
			if err != nil {
				return reportErr(cmd, err)
			}
			if done, err := printStructured(cmd.OutOrStdout(), output, pl); done {
				return reportErr(cmd, err)
			}
			printPods(cmd.OutOrStdout(), pl.Items, moment, output)
			return nil
		},
	}
	list.Flags().BoolVarP(&all, "all-namespaces", "A", false, "list the pods of every namespace")
	list.Flags().StringVarP(&selector, "selector", "l", "", "label selector, as kubectl's -l")
	list.Flags().StringVar(&fieldSel, "field-selector", "", "field selector: spec.nodeName, status.phase, metadata.name")
	addAtFlag(list, &at)
	get := &cobra.Command{
		Use: "get NAME", Short: "Show one pod (NAME, or NAMESPACE/NAME as herd prints pods)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient(cmd, server)
			if err != nil {
				return reportErr(cmd, err)
			}
			var p corev1.Pod
			if err := c.get(cmd.Context(), podPath(podArg(namespace, args[0])), nil, &p); err != nil {
				return reportErr(cmd, err)
			}
			if done, err := printStructured(cmd.OutOrStdout(), output, p); done {
				return reportErr(cmd, err)
			}
			printPods(cmd.OutOrStdout(), []corev1.Pod{p}, time.Now(), output)
			return nil
		},
	}
	var grace int64
	del := &cobra.Command{
		Use: "delete NAME", Short: "Delete a pod (NAME or NAMESPACE/NAME); it shuts down within its grace period", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient(cmd, server)
			if err != nil {
				return reportErr(cmd, err)
			}
			q := url.Values{}
			if grace >= 0 {
				q.Set("gracePeriodSeconds", strconv.FormatInt(grace, 10))
			}
			ns, name := podArg(namespace, args[0])
			if err := c.do(cmd.Context(), "DELETE", podPath(ns, name), q, "", nil, nil); err != nil {
				return reportErr(cmd, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "pod/%s deleted\n", name)
			return nil
		},
	}
	del.Flags().Int64Var(&grace, "grace-period", -1, "seconds the pod gets to shut down; negative keeps its own")
	for _, c := range []*cobra.Command{list, get} {
		addOutputFlag(c.Flags(), &output, listOutputs...)
	}
	cmd.AddCommand(list, get, del, podWhyCmd(&server, &namespace, &output))
	return cmd
}

// podArg is the namespace and name a pod argument names: NAMESPACE/NAME,
// as herd prints a pod in its answers (why, what-if, the audit trail),
// or a NAME in namespace (-n). A pod's name holds no slash.
func podArg(namespace, arg string) (string, string) {
	if ns, name, ok := strings.Cut(arg, "/"); ok {
		return ns, name
	}
	return namespace, arg
}

func podPath(namespace, name string) string {
	return "/api/v1/namespaces/" + url.PathEscape(namespace) + "/pods/" + url.PathEscape(name)
}

// printPods prints a kubectl-like table (-o wide adds READY and
// RESTARTS, as kubectl's plain table has them), or -o name's pod/NAME
// lines.
func printPods(w io.Writer, pods []corev1.Pod, now time.Time, output string) {
	if output == outputName {
		names := make([]string, len(pods))
		for i, p := range pods {
			names[i] = p.Name
		}
		printNames(w, "pod", names)
		return
	}
	wide := output == outputWide
	tw := tabwriter.NewWriter(w, 0, 8, 3, ' ', 0)
	header := "NAMESPACE\tNAME\tSTATUS\tNODE\tIP\tAGE"
	if wide {
		header += "\tREADY\tRESTARTS"
	}
	fmt.Fprintln(tw, header)
	for _, p := range pods {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s", p.Namespace, p.Name, httpapi.PodDisplayStatus(&p), dash(p.Spec.NodeName), dash(p.Status.PodIP),
			duration.HumanDuration(now.Sub(p.CreationTimestamp.Time)))
		if wide {
			var ready, restarts int32
			for _, c := range p.Status.ContainerStatuses {
				if c.Ready {
					ready++
				}
				restarts += c.RestartCount
			}
			fmt.Fprintf(tw, "\t%d/%d\t%d", ready, len(p.Spec.Containers), restarts)
		}
		fmt.Fprintln(tw)
	}
	_ = tw.Flush()
}
