package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "herd",
		Short: "herd is an event-sourced control plane for mixed fleets",
		Long: `herd keeps one truth — an append-only log of everything that happened to
every node — and serves it through a Kubernetes-compatible API.

Every flag can also be set with an environment variable: HERD_ followed by
the flag name in upper case with dashes as underscores (--data-dir is
HERD_DATA_DIR). A flag given on the command line wins.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			if err := bindEnv(cmd); err != nil {
				return configError{err}
			}
			return nil
		},
	}
	// A flag's bad value is a configuration error: exit status 2.
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return configError{err} })
	root.AddCommand(newServeCmd(), newAgentCmd(), newReplayCmd(), newWhatIfCmd(), newMigrateCmd(), newVacuumCmd(), newKubeconfigCmd(), newSnapshotsCmd(), newNodeCmd(), newFleetCmd(), newPodCmd(), newLogCmd(), newDeviceCmd(), newLoadgenCmd(), newVersionCmd())
	return root
}

// bindEnv fills every flag not given on the command line from its HERD_*
// variable, and names the variable when its value is wrong.
func bindEnv(cmd *cobra.Command) error {
	var errs []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Changed {
			return
		}
		env := "HERD_" + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		v, ok := os.LookupEnv(env)
		if !ok {
			return
		}
		if err := f.Value.Set(v); err != nil {
			errs = append(errs, fmt.Sprintf("%s=%q: %v", env, v, err))
		}
	})
	if len(errs) > 0 {
		return fmt.Errorf("bad environment: %s", strings.Join(errs, "; "))
	}
	return nil
}

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print herd's version",
		Args:  cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), "herd", version)
		},
	}
}
