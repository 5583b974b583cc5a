package reconcilers

import (
	"math/rand/v2"

	"github.com/google/uuid"
)

// SuffixAlphabet is what a generated name's suffix (and a template's
// hash) is made of: Kubernetes' own (k8s.io/apimachinery's rand.String),
// lowercase consonants and digits with neither vowels, so no word is
// spelt by chance, nor the digits 0, 1 and 3, which are read as letters.
const SuffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// SuffixLength is the length of the suffix, as kube-apiserver's
// generateName gives: "web-7x9kq".
const SuffixLength = 5

// MaxGeneratedBase is the longest base a generated name keeps, as
// kube-apiserver's SimpleNameGenerator: 63 characters less the suffix,
// so that a generated name is still a valid label value.
const MaxGeneratedBase = 63 - SuffixLength

// Identities makes the names and UIDs of the pods a workload's
// reconciler creates. Tests replace it to know what a reconcile will
// create.
type Identities struct {
	// Suffix returns a new name suffix; a pod is its owner's name, "-"
	// and the suffix.
	Suffix func() string
	// UID returns a new UID.
	UID func() string
}

// RandomIdentities are the identities herd runs with: random suffixes
// from Kubernetes' alphabet, and random (version 4) UUIDs, as
// kube-apiserver gives.
func RandomIdentities() Identities {
	return Identities{Suffix: randomSuffix, UID: uuid.NewString}
}

// randomSuffix is SuffixLength characters of SuffixAlphabet. The suffix
// needs to be unlikely to repeat, not unguessable: a name taken already
// only makes the creation fail, and the next reconcile draws again.
func randomSuffix() string {
	b := make([]byte, SuffixLength)
	for i := range b {
		b[i] = SuffixAlphabet[rand.IntN(len(SuffixAlphabet))] //nolint:gosec // a name, not a secret
	}
	return string(b)
}

// PodName is the name of a new pod of the workload called owner: what
// its controller's generateName "owner-" becomes.
func (ids Identities) PodName(owner string) string {
	return GeneratedBase(owner) + ids.Suffix()
}

// GeneratedBase is what the name of every pod PodName makes for the
// workload called owner begins with: "owner-", cut to MaxGeneratedBase.
func GeneratedBase(owner string) string {
	base := owner + "-"
	if len(base) > MaxGeneratedBase {
		base = base[:MaxGeneratedBase]
	}
	return base
}
