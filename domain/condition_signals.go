package domain

// The conditions herd raises beyond Kubernetes' own, each with the
// reasons an operator sees. Their polarity (which status is healthy) is
// HealthyStatus's.
const (
	// ConditionCPUPressure is True while a node's CPU use is above the
	// threshold (Thresholds.CPUPercent). Kubernetes has no such condition
	// and herd gives it no taint: busy CPUs slow pods down, they do not
	// make the node evict them.
	ConditionCPUPressure ConditionType = "CPUPressure"
	// ConditionCPUThrottling is True while a container on the node has
	// been held back by its CPU limit for a sustained share of its
	// scheduling periods; the message names the containers.
	ConditionCPUThrottling ConditionType = "CPUThrottling"
	// ConditionContainerRuntimeUnhealthy is True while a kubelet's own
	// figures say its container runtime is failing or slow (operation
	// errors, slow pod lifecycle relists), as node-problem-detector names
	// the same trouble.
	ConditionContainerRuntimeUnhealthy ConditionType = "ContainerRuntimeUnhealthy"
	// ConditionServicesHealthy is True while every service an agent was
	// told to watch runs, False naming the ones that do not.
	ConditionServicesHealthy ConditionType = "ServicesHealthy"
)

// Reasons of the conditions above and of NetworkUnavailable.
const (
	ReasonHasSufficientCPU        = "HasSufficientCPU"
	ReasonHasInsufficientCPU      = "HasInsufficientCPU"
	ReasonNoCPUThrottling         = "NoCPUThrottling"
	ReasonContainersThrottled     = "ContainersThrottled"
	ReasonContainerRuntimeHealthy = "ContainerRuntimeIsHealthy"
	ReasonContainerRuntimeErrors  = "ContainerRuntimeErrors"
	ReasonPodLifecycleSlow        = "PodLifecycleEventGeneratorSlow"
	ReasonServicesRunning         = "ServicesRunning"
	ReasonServicesFailed          = "ServicesFailed"
	ReasonNetworkAvailable        = "NetworkAvailable"
	ReasonNoLinkUp                = "NoLinkUp"
	ReasonNetworkErrors           = "NetworkErrors"
	// ReasonMetricsNotServed: the endpoint a condition was judged from
	// stopped being served, so herd cannot tell any more.
	ReasonMetricsNotServed = "MetricsNotServed"
)

// HealthyStatus is the status a condition of type t has when all is well:
// True for Ready, KubeletReachable and ServicesHealthy, False for the
// rest (the pressures, HighLoad, NetworkUnavailable, CPUThrottling,
// ContainerRuntimeUnhealthy, and a node problem detector's, which follow
// Kubernetes' convention that True is trouble).
func HealthyStatus(t ConditionType) ConditionStatus {
	switch t {
	case ConditionReady, ConditionKubeletReachable, ConditionServicesHealthy:
		return ConditionTrue
	}
	return ConditionFalse
}

// SignalsTrouble reports whether a condition's status says something is
// wrong: anything but its healthy status, Unknown included.
func SignalsTrouble(t ConditionType, s ConditionStatus) bool {
	return s != HealthyStatus(t)
}
