package viewstore

import "context"

// namespacesInUseSQL is the namespaces that hold a live pod or ConfigMap
// and have no live row of their own, in name order; the same statement
// on both engines (it binds nothing).
const namespacesInUseSQL = `SELECT namespace FROM pods WHERE finalized = 0
UNION SELECT namespace FROM configmaps WHERE deleted = 0
EXCEPT SELECT name FROM namespaces WHERE deleted = 0
ORDER BY 1`

// NamespacesInUse is the names of the namespaces that hold a live pod or
// ConfigMap and that the namespace view has no live row of: objects
// created before herd kept namespaces, or pods a kubelet runs in a
// namespace no one created in herd — what herd's start creates.
func NamespacesInUse(ctx context.Context, q Querier) ([]string, error) {
	return allNames(ctx, q, "namespaces in use", namespacesInUseSQL)
}
