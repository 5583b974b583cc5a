package main

import (
	"fmt"
	"net/http"
	"net/url"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"herd/adapters/httpapi"
)

// newDeviceCmd is `herd device`: the bindings of device names to the
// addresses they first spoke from on the device listener.
func newDeviceCmd() *cobra.Command {
	var server, output string
	cmd := &cobra.Command{Use: "device", Short: "Inspect and release the addresses device names are bound to"}
	addServerFlag(cmd, &server)
	list := &cobra.Command{
		Use:   "list",
		Short: "List bound device names: NAME, ADDRESS, BOUND",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, err := newClient(cmd, server)
			if err != nil {
				return reportErr(cmd, err)
			}
			var l httpapi.DeviceBindingList
			if err := c.get(cmd.Context(), "/apis/herd.dev/v1/devicebindings", nil, &l); err != nil {
				return reportErr(cmd, err)
			}
			if done, err := printStructured(cmd.OutOrStdout(), output, l); done {
				return reportErr(cmd, err)
			}
			if output == outputName {
				names := make([]string, len(l.Items))
				for i, b := range l.Items {
					names[i] = b.Name
				}
				printNames(cmd.OutOrStdout(), "devicebinding", names)
				return nil
			}
			// -o wide has no more to show than the table.
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 8, 3, ' ', 0)
			fmt.Fprintln(tw, "NAME\tADDRESS\tBOUND")
			for _, b := range l.Items {
				fmt.Fprintf(tw, "%s\t%s\t%s\n", b.Name, b.Address, b.BoundAt.Format(time.RFC3339))
			}
			return tw.Flush()
		},
	}
	addOutputFlag(list.Flags(), &output, listOutputs...)
	release := &cobra.Command{
		Use:   "release NAME",
		Short: "Free a device name from its address, so that the next address to register it is bound instead",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := newClient(cmd, server)
			if err != nil {
				return reportErr(cmd, err)
			}
			var b httpapi.DeviceBinding
			if err := c.do(cmd.Context(), http.MethodDelete, "/apis/herd.dev/v1/devicebindings/"+url.PathEscape(args[0]), nil, "", nil, &b); err != nil {
				return reportErr(cmd, err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "device %s released; the next address to register it will be bound\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(list, release)
	return cmd
}
