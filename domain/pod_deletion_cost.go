package domain

import (
	"fmt"
	"strconv"
)

// PodDeletionCostAnnotation is the annotation by which an operator says
// which of a ReplicaSet's pods a scale down takes first: the one with the
// lower cost, as Kubernetes' PodDeletionCost has it.
const PodDeletionCostAnnotation = "controller.kubernetes.io/pod-deletion-cost"

// PodDeletionCost is the cost annotations give, 0 without one, or why it
// is not one: a 32-bit integer written without a plus sign or leading
// zeros, as kube-apiserver reads it.
func PodDeletionCost(annotations map[string]string) (int32, error) {
	v, ok := annotations[PodDeletionCostAnnotation]
	if !ok {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 32)
	if err != nil || !firstDigitValid(v) {
		return 0, fmt.Errorf("invalid value %q", v)
	}
	return int32(n), nil
}

// firstDigitValid says v starts as kube-apiserver wants a cost to: a
// minus sign, a digit from 1 to 9, or is "0".
func firstDigitValid(v string) bool {
	return v != "" && (v[0] == '-' || v == "0" || v[0] >= '1' && v[0] <= '9')
}
