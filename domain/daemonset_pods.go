package domain

import (
	"encoding/json"
	"hash/fnv"
	"strconv"
)

// The labels a DaemonSet's pods carry, as Kubernetes' DaemonSet
// controller gives them: the hash of the template each was made from,
// and the DaemonSet's template generation then. A rolling update tells
// the pods of the current template from the older ones by either.
const (
	LabelControllerRevisionHash = "controller-revision-hash"
	LabelPodTemplateGeneration  = "pod-template-generation"
)

// hashAlphabet is what a template hash is spelt in: Kubernetes' own
// (rand.SafeEncodeString), without vowels, so that no word is spelt by
// chance, nor 0, 1 and 3.
const hashAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// PodTemplateHash is the hash of a workload's pod template, as its pods'
// controller-revision-hash label names it: the FNV-1a hash of the
// template's JSON, its decimal digits spelt in hashAlphabet, as
// Kubernetes spells its ComputeHash. The same template always has the
// same hash; a changed one almost surely another.
func PodTemplateHash(t PodTemplate) string {
	data, err := json.Marshal(t)
	if err != nil {
		// A template of strings, maps and numbers always encodes.
		panic("domain: a pod template does not encode: " + err.Error())
	}
	h := fnv.New32a()
	_, _ = h.Write(data)
	digits := []byte(strconv.FormatUint(uint64(h.Sum32()), 10))
	for i, d := range digits {
		digits[i] = hashAlphabet[int(d)%len(hashAlphabet)]
	}
	return string(digits)
}
