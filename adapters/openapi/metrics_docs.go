package openapi

import (
	"maps"
	"reflect"

	metricsv1beta1 "k8s.io/metrics/pkg/apis/metrics/v1beta1"
)

// The documentation of metrics.k8s.io/v1beta1's fields, from the comments
// of k8s.io/metrics' types: unlike k8s.io/api, that module generates no
// SwaggerDoc for them, and kubectl explain should still say what a
// field is.
var (
	metricsObjectDocs = map[string]string{
		"metadata":  "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
		"timestamp": "The following fields define time interval from which metrics were collected from the interval [Timestamp-Window, Timestamp].",
		"window":    "The following fields define time interval from which metrics were collected from the interval [Timestamp-Window, Timestamp].",
	}
	metricsListDocs = map[string]string{
		"metadata": "Standard list metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
	}
)

// otherDocs are SwaggerDoc maps of types whose package has none.
var otherDocs = map[reflect.Type]map[string]string{
	reflect.TypeFor[metricsv1beta1.NodeMetrics](): with(metricsObjectDocs, map[string]string{
		"":      "NodeMetrics sets resource usage metrics of a node.",
		"usage": "The memory usage is the memory working set.",
	}),
	reflect.TypeFor[metricsv1beta1.NodeMetricsList](): with(metricsListDocs, map[string]string{
		"":      "NodeMetricsList is a list of NodeMetrics.",
		"items": "List of node metrics.",
	}),
	reflect.TypeFor[metricsv1beta1.PodMetrics](): with(metricsObjectDocs, map[string]string{
		"":           "PodMetrics sets resource usage metrics of a pod.",
		"containers": "Metrics for all containers are collected within the same time window.",
	}),
	reflect.TypeFor[metricsv1beta1.PodMetricsList](): with(metricsListDocs, map[string]string{
		"":      "PodMetricsList is a list of PodMetrics.",
		"items": "List of pod metrics.",
	}),
	reflect.TypeFor[metricsv1beta1.ContainerMetrics](): {
		"":      "ContainerMetrics sets resource usage metrics of a container.",
		"name":  "Container name corresponding to the one from pod.spec.containers.",
		"usage": "The memory usage is the memory working set.",
	},
}

// with is a copy of common with more added.
func with(common, more map[string]string) map[string]string {
	out := maps.Clone(common)
	maps.Copy(out, more)
	return out
}
