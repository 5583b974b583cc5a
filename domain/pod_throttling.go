package domain

// PodConditionCPUThrottled is True on a pod a kubelet runs while one of
// its containers has been held back by its CPU limit for a sustained
// share of its scheduling periods; the message names the containers. herd
// sets it from the kubelet's cAdvisor figures beside the conditions the
// kubelet reports: False once herd has figures for one of the pod's
// containers and none is throttled. A pod whose containers have no CPU
// limit has no such figures, and no such condition. Kubernetes has none.
const PodConditionCPUThrottled PodConditionType = "CPUThrottled"
