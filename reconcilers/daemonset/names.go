package daemonset

import (
	"math/rand/v2"

	"github.com/google/uuid"
)

// suffixAlphabet is what a generated name's suffix is made of:
// Kubernetes' own (k8s.io/apimachinery's rand.String), without vowels,
// so no word is spelt by chance, nor the digits 0, 1 and 3.
const suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// suffixLength is the length of the suffix, as kube-apiserver's
// generateName gives: "logs-7x9kq".
const suffixLength = 5

// Identities makes the names and UIDs of new pods. Tests replace it to
// know what a reconcile will create.
type Identities struct {
	// Suffix returns a new name suffix; a pod is the DaemonSet's name,
	// "-" and the suffix.
	Suffix func() string
	// UID returns a new UID.
	UID func() string
}

// RandomIdentities are the identities herd runs with: random suffixes
// from Kubernetes' alphabet, and random (version 4) UUIDs.
func RandomIdentities() Identities {
	return Identities{Suffix: randomSuffix, UID: uuid.NewString}
}

// randomSuffix is suffixLength characters of suffixAlphabet. A name
// taken already only makes the creation fail, and the next reconcile
// draws again.
func randomSuffix() string {
	b := make([]byte, suffixLength)
	for i := range b {
		b[i] = suffixAlphabet[rand.IntN(len(suffixAlphabet))]
	}
	return string(b)
}

// maxGeneratedBase is the longest base a generated name keeps, as
// kube-apiserver's SimpleNameGenerator: 63 characters less the suffix.
const maxGeneratedBase = 63 - suffixLength

// podName is the name of a new pod of the DaemonSet called ds: what the
// DaemonSet controller's generateName "ds-" becomes.
func (ids Identities) podName(ds string) string {
	base := ds + "-"
	if len(base) > maxGeneratedBase {
		base = base[:maxGeneratedBase]
	}
	return base + ids.Suffix()
}
