package illumos

import (
	"errors"
	"strings"
	"testing"

	"herd/domain"
)

// zonePod is a bound pod with an address, limits as given (millicores,
// bytes; 0 for none) and a zone spec.
func zonePod(name string, cpu, memory int64, zone *domain.ZoneSpec) domain.Pod {
	c := domain.Container{Name: "app", Limits: domain.ResourceList{}}
	if cpu > 0 {
		c.Limits["cpu"] = cpu
	}
	if memory > 0 {
		c.Limits["memory"] = memory
	}
	return domain.Pod{
		Namespace: "default", Name: name, UID: "uid-" + name,
		Spec:    domain.PodSpec{NodeName: "zone-01", Containers: []domain.Container{c}, Zone: zone},
		Network: &domain.PodNetwork{Pool: "10.88.0.0/16", IP: "10.88.0.2", PrefixLength: 16, Gateway: "10.88.0.1"},
	}
}

func testConfig() Config {
	cfg := DefaultConfig()
	cfg.CustomBrands = []string{"pkgsrc"}
	return cfg
}

func TestZonecfgGolden(t *testing.T) {
	withStorage := zonePod("db", 2000, 4<<30, &domain.ZoneSpec{Brand: "lx", Image: "ubuntu-24.04.tar.xz", Volumes: []domain.ZoneVolume{
		{Name: "scratch", MountPath: "/scratch", SizeBytes: 1 << 30},
		{Name: "data", MountPath: "/var/lib/postgresql", Persistent: true},
	}})
	withStorage.Spec.Containers[0].Limits["ephemeral-storage"] = 10 << 30
	twoContainers := zonePod("pair", 250, 64<<20, nil)
	twoContainers.Spec.Containers = append(twoContainers.Spec.Containers, domain.Container{Name: "side",
		Limits: domain.ResourceList{"cpu": 1001, "memory": 1000}})
	partial := zonePod("partial", 500, 0, nil)
	partial.Spec.Containers = append(partial.Spec.Containers, domain.Container{Name: "nolimit"})
	direct := testConfig()
	direct.NetworkMode, direct.Link = NetworkDirect, "ixgbe0"
	tests := []struct {
		name string
		pod  domain.Pod
		cfg  Config
	}{
		{"sparse-default", zonePod("web", 1500, 512<<20, nil), testConfig()},
		{"sparse-uncapped", zonePod("web", 0, 0, &domain.ZoneSpec{Brand: "sparse"}), testConfig()},
		{"lx", zonePod("ubuntu", 250, 256<<20, &domain.ZoneSpec{Brand: "lx", Image: "/images/ubuntu-24.04.tar.xz"}), testConfig()},
		{"lx-volumes", withStorage, testConfig()},
		{"custom-brand", zonePod("build", 4000, 8<<30, &domain.ZoneSpec{Brand: "pkgsrc"}), testConfig()},
		{"two-containers", twoContainers, testConfig()},
		{"partial-limits", partial, testConfig()},
		{"direct", zonePod("web", 100, 0, nil), direct},
		{"other-pool", zonePod("web", 1, 0, nil), func() Config { c := testConfig(); c.StoragePool = "tank"; return c }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.cfg.Validate(); err != nil {
				t.Fatal(err)
			}
			got, err := zonecfgCommands(tt.pod, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, "zonecfg/"+tt.name+".zonecfg", got)
		})
	}
}

func TestZonecfgRefusesWhatTheHostCannotRun(t *testing.T) {
	noIP := zonePod("web", 0, 0, nil)
	noIP.Network = nil
	tests := []struct {
		name string
		pod  domain.Pod
		want string
	}{
		{"unknown brand", zonePod("web", 0, 0, &domain.ZoneSpec{Brand: "bhyve"}), `brand "bhyve" is not one this host runs (lx, sparse, pkgsrc)`},
		{"lx without image", zonePod("web", 0, 0, &domain.ZoneSpec{Brand: "lx"}), "brand lx installs from an image, and the pod names none"},
		{"sparse with image", zonePod("web", 0, 0, &domain.ZoneSpec{Image: "x.tar"}), "brand sparse installs from the host's own packages"},
		{"image escaping the image directory", zonePod("web", 0, 0, &domain.ZoneSpec{Brand: "lx", Image: "../../etc/shadow"}), `image "../../etc/shadow": want a file name in /var/lib/herd/images`},
		{"unclean absolute image", zonePod("web", 0, 0, &domain.ZoneSpec{Brand: "lx", Image: "/images/../etc/x"}), "want a clean absolute path"},
		{"no address", noIP, "it has no IP address yet"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := zonecfgCommands(tt.pod, testConfig())
			if !errors.Is(err, ErrUnrunnable) || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want ErrUnrunnable saying %q", err, tt.want)
			}
		})
	}
}

func TestCPUAndMemoryCaps(t *testing.T) {
	tests := []struct {
		cpu, memory int64
		ncpus, mem  string
	}{
		{1000, 1 << 30, "1.00", "1G"},
		{1500, 1536 << 20, "1.50", "1536M"},
		{250, 3 << 10, "0.25", "3K"},
		{1, 1000, "0.01", "1000"},
		{4, 1 << 40, "0.01", "1T"},
		{16995, 0, "17.00", ""},
		{0, 0, "", ""},
	}
	for _, tt := range tests {
		p := zonePod("x", tt.cpu, tt.memory, nil)
		if got := cpuCap(p); got != tt.ncpus {
			t.Errorf("cpu %dm: ncpus %q, want %q", tt.cpu, got, tt.ncpus)
		}
		if got := memoryCap(p); got != tt.mem {
			t.Errorf("memory %d: %q, want %q", tt.memory, got, tt.mem)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config)
		want   string
	}{
		{"bad pool", func(c *Config) { c.StoragePool = "rpool/herd" }, "--storage-pool"},
		{"no pool", func(c *Config) { c.StoragePool = "" }, "--storage-pool"},
		{"bad mode", func(c *Config) { c.NetworkMode = "bridge" }, `--network-mode "bridge"`},
		{"direct without link", func(c *Config) { c.NetworkMode = NetworkDirect }, "--physical-link"},
		{"bad etherstub", func(c *Config) { c.Etherstub = "stub01" }, "leading zero"},
		{"bad brand", func(c *Config) { c.CustomBrands = []string{"Bad Brand"} }, "--zone-brands"},
		{"unknown default brand", func(c *Config) { c.DefaultBrand = "pkgsrc" }, "--default-brand"},
		{"relative image dir", func(c *Config) { c.ImageDir = "images" }, "--image-dir"},
		{"relative root", func(c *Config) { c.Root = "zones" }, "--zone-root"},
		{"zones dataset without a pool", func(c *Config) { c.ZonesDataset = "zones" }, `--zones-dataset: "zones": want a dataset below a pool`},
		{"bad zones dataset", func(c *Config) { c.ZonesDataset = "tank/my zones" }, "--zones-dataset"},
		{"bad images dataset", func(c *Config) { c.ImagesDataset = "tank//images" }, "--images-dataset"},
		{"images among the zones", func(c *Config) { c.ImagesDataset = "rpool/herd/zones/images" }, "--images-dataset rpool/herd/zones/images: overlaps --zones-dataset"},
		{"bad etherstub name", func(c *Config) { c.Etherstub = "stub" }, "--etherstub-name"},
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DefaultConfig()
			tt.change(&c)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one naming %s", err, tt.want)
			}
		})
	}
}

// zonecfgCommands is the zonecfg command file for a pod's zone, as
// `zonecfg -z <zone> -f` reads it, or an error wrapping ErrUnrunnable.
func zonecfgCommands(p domain.Pod, cfg Config) (string, error) {
	s, err := cfg.specFor(p)
	if err != nil {
		return "", err
	}
	return s.zonecfg(cfg), nil
}
