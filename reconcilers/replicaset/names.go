package replicaset

import "herd/reconcilers"

// Identities makes the names and UIDs of new pods (reconcilers.Identities).
type Identities = reconcilers.Identities
