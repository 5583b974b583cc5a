package domain

// PodConditionCPUThrottled is True on a pod a kubelet runs while one of
// its containers has been held back by its CPU limit for a sustained
// share of its scheduling periods; the message names the containers. herd
// sets it from the kubelet's cAdvisor figures beside the conditions the
// kubelet reports, and it is gone from the pod once no container is
// throttled. Kubernetes has no such condition.
const PodConditionCPUThrottled PodConditionType = "CPUThrottled"
