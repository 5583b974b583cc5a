package kubelet

import (
	"bufio"
	"bytes"
	"fmt"
)

// The /metrics/cadvisor series herd reads. The endpoint serves some sixty
// families, a megabyte and more on a busy node; herd keeps only the lines
// of these before parsing, so that reading it costs a scan, not a parse.
var cadvisorFamilies = [][]byte{
	[]byte("container_cpu_cfs_periods_total"),
	[]byte("container_cpu_cfs_throttled_periods_total"),
	[]byte("container_network_receive_errors_total"),
	[]byte("container_network_transmit_errors_total"),
}

// cadvisorRootID is the id label cAdvisor gives the machine itself (the
// root cgroup), whose network series are the node's own interfaces.
const cadvisorRootID = `id="/"`

// cfsPeriods is one container's CFS counters.
type cfsPeriods struct {
	// Periods is how many scheduling periods the container could run in.
	Periods float64
	// Throttled is how many of them its CPU limit held it back in.
	Throttled float64
}

// cadvisorSample is what herd takes from one /metrics/cadvisor answer.
type cadvisorSample struct {
	// CFS holds the CFS counters of every container with a name (not the
	// pod's sandbox, not a pod's or the node's cgroup).
	CFS map[containerRef]cfsPeriods
	// NetworkErrors is the node's interfaces' receive and transmit errors
	// since boot, summed; NetworkKnown is false when cAdvisor served none.
	NetworkErrors float64
	NetworkKnown  bool
}

// decodeCadvisor reads /metrics/cadvisor: the lines of cadvisorFamilies,
// parsed as Prometheus text.
func decodeCadvisor(body []byte) (cadvisorSample, error) {
	kept, err := keepFamilies(endpointCadvisor, body, cadvisorFamilies, cadvisorRootID, 2)
	if err != nil {
		return cadvisorSample{}, err
	}
	fams, err := parseText(endpointCadvisor, kept)
	if err != nil {
		return cadvisorSample{}, err
	}
	s := cadvisorSample{CFS: map[containerRef]cfsPeriods{}}
	for name, fam := range fams {
		for _, m := range fam.GetMetric() {
			l := labels(m)
			switch name {
			case "container_cpu_cfs_periods_total", "container_cpu_cfs_throttled_periods_total":
				if l["container"] == "" || l["container"] == "POD" {
					continue
				}
				ref := containerRef{Namespace: l["namespace"], Pod: l["pod"], Container: l["container"]}
				c := s.CFS[ref]
				if name == "container_cpu_cfs_periods_total" {
					c.Periods += value(m)
				} else {
					c.Throttled += value(m)
				}
				s.CFS[ref] = c
			default:
				if l["id"] == "/" {
					s.NetworkErrors += value(m)
					s.NetworkKnown = true
				}
			}
		}
	}
	return s, nil
}

// keepFamilies returns the lines of a Prometheus text body that belong to
// the named families: their samples and their # HELP and # TYPE lines. The
// samples of the families from index rootFrom on are kept only when they
// contain root (the node's own series, of which cAdvisor serves one per
// interface among thousands of containers'). A line that cannot be
// Prometheus text (a sample that does not start with a metric name: an
// HTML page, JSON) is an error, so that an answer that is not metrics at
// all is not read as one without them.
func keepFamilies(endpoint string, body []byte, families [][]byte, root string, rootFrom int) ([]byte, error) {
	var out bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), maxBodyBytes)
	rootBytes := []byte(root)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		name := line
		switch {
		case bytes.HasPrefix(line, []byte("# HELP ")) || bytes.HasPrefix(line, []byte("# TYPE ")):
			name = line[len("# TYPE "):]
		case len(line) == 0 || line[0] == '#':
			continue
		case !metricNameStart(line[0]):
			return nil, fmt.Errorf("decode %s: line %d is not Prometheus text: %.40q", endpoint, n, line)
		}
		for i, f := range families {
			if !bytes.HasPrefix(name, f) || len(name) == len(f) || (name[len(f)] != '{' && name[len(f)] != ' ') {
				continue
			}
			if i >= rootFrom && name[len(f)] == '{' && !bytes.Contains(name, rootBytes) {
				break
			}
			out.Write(line)
			out.WriteByte('\n')
			break
		}
	}
	return out.Bytes(), nil
}

// metricNameStart reports whether c may begin a sample line: a metric
// name, or the blanks the text format allows before one.
func metricNameStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || c == ' ' || c == '\t'
}
