package illumos

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"herd/domain"
)

// ErrUnrunnable marks a pod this host cannot run as asked — an unknown
// brand, a missing image, no address: retrying does not help, the pod
// fails.
var ErrUnrunnable = errors.New("pod cannot run on this host")

// zoneSpec is everything a pod's zone is made of, resolved from the pod
// and the host's configuration. Every name in it is derived from the pod,
// so resolving it again after a crash gives the same zone, VNIC and
// datasets.
type zoneSpec struct {
	pod      string // namespace/name
	uid      string
	zone     string
	brand    string
	image    string // the path zoneadm installs from; "" for none
	zonepath string
	dataset  string // the zone's own dataset, mounted at zonepath
	quota    int64  // the zone dataset's quota in bytes; 0 for none
	vnic     string
	over     string // the link the VNIC is made on
	network  domain.PodNetwork
	ncpus    string // capped-cpu, "1.50"; "" for no cap
	memory   string // capped-memory, "512M"; "" for no cap
	volumes  []volumeSpec
}

// volumeSpec is one dataset mounted into the zone.
type volumeSpec struct {
	name       string
	mountPath  string
	dataset    string
	mountpoint string
	quota      int64
	persistent bool
}

// Datasets of the storage layout under <pool>/herd.
func (c Config) baseDataset() string       { return c.StoragePool + "/herd" }
func (c Config) zonesDataset() string      { return c.ZonesDataset }
func (c Config) herdZonesDataset() string  { return c.baseDataset() + "/zones" }
func (c Config) volumesDataset() string    { return c.baseDataset() + "/volumes" }
func (c Config) persistentDataset() string { return c.baseDataset() + "/persistent" }

// mountpoint is where a dataset under <pool>/herd is mounted: Root with
// the rest of its name. A zone's dataset under a --zones-dataset of its
// own is mounted at Root/zones/<zone> as well (zoneMountpoint).
func (c Config) mountpoint(dataset string) string {
	if rest, ok := strings.CutPrefix(dataset, c.zonesDataset()+"/"); ok && c.ownZonesDataset() {
		return c.Root + "/zones/" + rest
	}
	rel := strings.TrimPrefix(dataset, c.baseDataset())
	return c.Root + rel
}

// ownZonesDataset reports whether the zones' datasets live elsewhere than
// <pool>/herd/zones: each is then made with its mountpoint set.
func (c Config) ownZonesDataset() bool { return c.zonesDataset() != c.herdZonesDataset() }

// specFor resolves the zone of a pod, or says with ErrUnrunnable why this
// host cannot run it.
func (c Config) specFor(p domain.Pod) (zoneSpec, error) {
	c.setDefaults()
	zone := ZoneName(p)
	s := zoneSpec{
		pod: p.Key(), uid: p.UID, zone: zone, brand: c.DefaultBrand,
		dataset: c.zonesDataset() + "/" + zone, vnic: VNICName(p), over: c.Link,
	}
	s.zonepath = c.mountpoint(s.dataset)
	if c.NetworkMode == NetworkEtherstub {
		s.over = c.Etherstub
	}
	var problems []string
	if p.Network == nil {
		problems = append(problems, "it has no IP address yet (IPAM assigns one before provisioning)")
	} else {
		s.network = *p.Network
	}
	var image string
	if z := p.Spec.Zone; z != nil {
		if z.Brand != "" {
			s.brand = z.Brand
		}
		image = z.Image
	}
	switch {
	case !slices.Contains(c.Brands(), s.brand):
		problems = append(problems, fmt.Sprintf("brand %q is not one this host runs (%s)", s.brand, strings.Join(c.Brands(), ", ")))
	case s.brand == BrandLX && image == "":
		problems = append(problems, "brand lx installs from an image, and the pod names none")
	case s.brand == BrandSparse && image != "":
		problems = append(problems, "brand sparse installs from the host's own packages and takes no image")
	}
	if image != "" {
		resolved, err := c.resolveImage(image)
		if err != nil {
			problems = append(problems, err.Error())
		}
		s.image = resolved
	}
	s.ncpus = cpuCap(p)
	s.memory = memoryCap(p)
	if q, ok := podLimit(p, "ephemeral-storage"); ok {
		s.quota = q
	}
	if z := p.Spec.Zone; z != nil {
		for _, v := range z.Volumes {
			vs := volumeSpec{name: v.Name, mountPath: v.MountPath, quota: v.SizeBytes, persistent: v.Persistent}
			if v.Persistent {
				// Persistent volumes belong to the namespace, so that the
				// next pod that asks for the same name finds the data.
				vs.dataset = c.persistentDataset() + "/" + p.Namespace + "/" + v.Name
			} else {
				vs.dataset = c.volumesDataset() + "/" + zone + "/" + v.Name
			}
			vs.mountpoint = c.mountpoint(vs.dataset)
			s.volumes = append(s.volumes, vs)
		}
	}
	if len(problems) > 0 {
		return s, fmt.Errorf("pod %s: %s: %w", p.Key(), strings.Join(problems, "; "), ErrUnrunnable)
	}
	return s, nil
}

// resolveImage turns an image into the path zoneadm installs from: an
// absolute path as it is, a bare file name inside ImageDir.
func (c Config) resolveImage(image string) (string, error) {
	if path.IsAbs(image) {
		if path.Clean(image) != image {
			return "", fmt.Errorf("image %q: want a clean absolute path", image)
		}
		return image, nil
	}
	if strings.Contains(image, "/") || image == "." || image == ".." {
		return "", fmt.Errorf("image %q: want a file name in %s or an absolute path", image, c.ImageDir)
	}
	return path.Join(c.ImageDir, image), nil
}

// podLimit is a pod's limit of a resource: the sum over its containers
// when every one of them sets it, as Kubernetes computes a pod's limit;
// false when one does not, and the pod is not capped.
func podLimit(p domain.Pod, resource string) (int64, bool) {
	var sum int64
	for _, c := range p.Spec.Containers {
		v, ok := c.Limits[resource]
		if !ok {
			return 0, false
		}
		sum += v
	}
	return sum, len(p.Spec.Containers) > 0
}

// cpuCap is capped-cpu's ncpus from the CPU limit: millicores / 1000 with
// two decimals, rounded to the nearest hundredth and never below 0.01.
func cpuCap(p domain.Pod) string {
	m, ok := podLimit(p, "cpu")
	if !ok || m <= 0 {
		return ""
	}
	centi := max((m+5)/10, 1)
	return fmt.Sprintf("%d.%02d", centi/100, centi%100)
}

// memoryCap is capped-memory's physical (and swap) from the memory
// limit, in the largest unit zonecfg takes that states it exactly.
func memoryCap(p domain.Pod) string {
	b, ok := podLimit(p, "memory")
	if !ok || b <= 0 {
		return ""
	}
	return sizeString(b)
}

// sizeString renders bytes with zonecfg's and zfs's suffixes (K, M, G, T),
// in the largest unit that divides them.
func sizeString(b int64) string {
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"T", 40}, {"G", 30}, {"M", 20}, {"K", 10}} {
		if b%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", b>>u.shift, u.suffix)
		}
	}
	return fmt.Sprint(b)
}
