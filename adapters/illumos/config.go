package illumos

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// The network modes.
const (
	// NetworkEtherstub puts every pod's VNIC on an etherstub, a virtual
	// switch inside the host; the global zone holds each pool's gateway
	// address on a VNIC of its own on the same etherstub.
	NetworkEtherstub = "etherstub"
	// NetworkDirect puts every pod's VNIC on a physical link; the pools'
	// gateways are routers on that link's network.
	NetworkDirect = "direct"
)

// The brands herd knows by name.
const (
	// BrandSparse is OmniOS's native sparse-root brand, the default.
	BrandSparse = "sparse"
	// BrandLX runs a Linux userland, installed from the pod's image.
	BrandLX = "lx"
)

// Config is how the zone runtime is set up on a host.
type Config struct {
	// StoragePool is the ZFS pool herd's datasets live in
	// (--storage-pool, default rpool).
	StoragePool string
	// Root is where herd's base dataset <pool>/herd is mounted; zones
	// live under Root/zones (default /<pool>/herd).
	Root string
	// NetworkMode is etherstub or direct (--network-mode).
	NetworkMode string
	// Etherstub names the etherstub in etherstub mode (--etherstub-name,
	// or its older spelling --etherstub; default herdstub0).
	Etherstub string
	// ZonesDataset is the dataset under which each zone's root dataset is
	// made (--zones-dataset; default <pool>/herd/zones). One elsewhere —
	// another pool, a faster disk — is made if missing, and each zone's
	// dataset under it is mounted at Root/zones/<zone> all the same, so
	// zonepaths do not depend on where the data lives.
	ZonesDataset string
	// ImagesDataset is a dataset for the zone images (--images-dataset;
	// default none, ImageDir is a plain directory). When set, it is made
	// if missing, mounted at ImageDir, so images dropped there live on it.
	ImagesDataset string
	// Link is the physical link VNICs are made on in direct mode.
	Link string
	// DefaultBrand is the brand of pods that name none (default sparse).
	DefaultBrand string
	// CustomBrands are further brands this host runs (pkgsrc, bhyve...):
	// zonecfg sets the brand and zoneadm installs it, from the pod's image
	// when it names one.
	CustomBrands []string
	// ImageDir is where images named without a path are found
	// (default /var/lib/herd/images).
	ImageDir string
	// LXKernelVersion is the Linux kernel version lx zones report
	// (default 4.4).
	LXKernelVersion string
	// Retry is how a command that failed on a busy or locked resource is
	// tried again (--command-attempts, --command-backoff).
	Retry Retry
}

// DefaultConfig is a host with an rpool, an etherstub and sparse zones.
func DefaultConfig() Config {
	return Config{
		StoragePool:     "rpool",
		NetworkMode:     NetworkEtherstub,
		Etherstub:       "herdstub0",
		DefaultBrand:    BrandSparse,
		ImageDir:        "/var/lib/herd/images",
		LXKernelVersion: "4.4",
		Retry:           DefaultRetry(),
	}
}

// setDefaults fills what follows from other settings.
func (c *Config) setDefaults() {
	if c.Root == "" && c.StoragePool != "" {
		c.Root = "/" + c.StoragePool + "/herd"
	}
	if c.ZonesDataset == "" && c.StoragePool != "" {
		c.ZonesDataset = c.baseDataset() + "/zones"
	}
}

// Brands lists the brands this host runs.
func (c Config) Brands() []string {
	return append([]string{BrandLX, BrandSparse}, c.CustomBrands...)
}

// Validate names every setting that is wrong.
func (c Config) Validate() error {
	c.setDefaults()
	var errs []error
	if err := validDatasetComponent(c.StoragePool); err != nil {
		errs = append(errs, fmt.Errorf("--storage-pool: %w", err))
	}
	if !path.IsAbs(c.Root) || path.Clean(c.Root) != c.Root {
		errs = append(errs, fmt.Errorf("--zone-root %q: want a clean absolute path", c.Root))
	}
	switch c.NetworkMode {
	case NetworkEtherstub:
		if err := ValidLinkName(c.Etherstub); err != nil {
			errs = append(errs, fmt.Errorf("--etherstub-name: %w", err))
		}
	case NetworkDirect:
		if err := ValidLinkName(c.Link); err != nil {
			errs = append(errs, fmt.Errorf("--physical-link (needed in direct mode): %w", err))
		}
	default:
		errs = append(errs, fmt.Errorf("--network-mode %q: want etherstub or direct", c.NetworkMode))
	}
	for _, b := range c.CustomBrands {
		if b == "" || strings.Trim(b, "abcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			errs = append(errs, fmt.Errorf("--zone-brands %q: a brand name is lower-case letters, digits, '-' and '_'", b))
		}
	}
	if !slices.Contains(c.Brands(), c.DefaultBrand) {
		errs = append(errs, fmt.Errorf("--default-brand %q: not one this host runs (%s)", c.DefaultBrand, strings.Join(c.Brands(), ", ")))
	}
	if c.StoragePool != "" {
		if err := validDataset(c.ZonesDataset); err != nil {
			errs = append(errs, fmt.Errorf("--zones-dataset: %w", err))
		}
	}
	if c.ImagesDataset != "" {
		if err := validDataset(c.ImagesDataset); err != nil {
			errs = append(errs, fmt.Errorf("--images-dataset: %w", err))
		} else if within(c.ImagesDataset, c.ZonesDataset) || within(c.ZonesDataset, c.ImagesDataset) {
			errs = append(errs, fmt.Errorf("--images-dataset %s: overlaps --zones-dataset %s; images and zone roots need datasets apart", c.ImagesDataset, c.ZonesDataset))
		}
	}
	if !path.IsAbs(c.ImageDir) {
		errs = append(errs, fmt.Errorf("--image-dir %q: want an absolute path", c.ImageDir))
	}
	if c.LXKernelVersion == "" {
		errs = append(errs, errors.New("--lx-kernel-version must not be empty"))
	}
	if err := c.Retry.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// validDatasetComponent checks one component of a ZFS dataset name:
// letters, digits, '_', '-', ':' and '.', starting with a letter or digit.
func validDatasetComponent(s string) error {
	if s == "" || !isAlnum(s[0]) {
		return fmt.Errorf("%q: want a name starting with a letter or digit", s)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && !strings.ContainsRune("_-:.", rune(c)) {
			return fmt.Errorf("%q: %q may not appear in a ZFS dataset name", s, c)
		}
	}
	return nil
}

// validDataset checks a dataset below a pool: pool/name[/name...], each
// component a valid dataset component.
func validDataset(s string) error {
	parts := strings.Split(s, "/")
	if len(parts) < 2 {
		return fmt.Errorf("%q: want a dataset below a pool, such as tank/zones", s)
	}
	for _, p := range parts {
		if err := validDatasetComponent(p); err != nil {
			return fmt.Errorf("%q: %w", s, err)
		}
	}
	return nil
}

// within reports whether dataset ds is parent or lies below it.
func within(ds, parent string) bool { return ds == parent || strings.HasPrefix(ds, parent+"/") }
