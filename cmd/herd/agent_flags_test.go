package main

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/pflag"

	"herd/cmd/herd/app"
)

func TestNodeFlagsSetTheZoneRuntime(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want func(*app.NodeConfig)
	}{
		{"defaults", nil, func(*app.NodeConfig) {}},
		{"etherstub name", []string{"--etherstub-name", "podstub1"}, func(c *app.NodeConfig) { c.Illumos.Etherstub = "podstub1" }},
		{"etherstub, the older spelling", []string{"--etherstub", "podstub2"}, func(c *app.NodeConfig) { c.Illumos.Etherstub = "podstub2" }},
		{"datasets", []string{"--storage-pool", "tank", "--zones-dataset", "fast/zones", "--images-dataset", "tank/images"}, func(c *app.NodeConfig) {
			c.Illumos.StoragePool, c.Illumos.ZonesDataset, c.Illumos.ImagesDataset = "tank", "fast/zones", "tank/images"
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want := app.DefaultNodeConfig(), app.DefaultNodeConfig()
			f := pflag.NewFlagSet("agent", pflag.ContinueOnError)
			addNodeFlags(f, &got)
			if err := f.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			tt.want(&want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestOnlyServeTakesPodCIDR(t *testing.T) {
	if newAgentCmd().Flags().Lookup("pod-cidr") != nil {
		t.Error("herd agent takes --pod-cidr; addresses are herd serve's to hand out")
	}
	if newServeCmd().Flags().Lookup("pod-cidr") == nil {
		t.Error("herd serve lacks --pod-cidr")
	}
}

// TestWatchServiceRepeats: --watch-service is given once per service,
// and a name with a comma is one name.
func TestWatchServiceRepeats(t *testing.T) {
	cmd := newAgentCmd()
	if err := cmd.Flags().Parse([]string{"--watch-service", "nginx", "--watch-service", "svc:/network/ssh:default,x"}); err != nil {
		t.Fatal(err)
	}
	got, err := cmd.Flags().GetStringArray("watch-service")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"nginx", "svc:/network/ssh:default,x"}, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
