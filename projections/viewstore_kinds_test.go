package projections

import (
	"go/ast"
	"go/parser"
	"go/token"
	"regexp"
	"strconv"
	"testing"
)

// objectKindFiles are the files of the kinds whose views are behind the
// views' store port (viewstore), the lease view's, the node view's, the
// pod view's, the node timeline's, the IP address views', the namespace
// view's and the device binding view's among them: they hold no SQL of
// their own.
var objectKindFiles = []string{
	"json_rows.go", "json_view.go",
	"configmap.go",
	"controllerrevision.go", "cronjob.go", "daemonset.go", "daemonset_view.go",
	"deployment.go", "device_binding.go", "fleet.go", "health_view.go", "job.go", "job_view.go", "kind_view.go", "kubelet_targets.go", "lease.go",
	"node.go", "node_history.go", "node_hot.go", "node_queries.go", "node_view.go",
	"pod.go", "pod_history.go", "pod_index.go", "pod_nodes.go", "pod_orphans.go", "pod_view.go",
	"poddisruptionbudget.go", "poddisruptionbudget_view.go",
	"replicaset.go", "replicaset_view.go", "statefulset.go",
	"timeline.go", "timeline_view.go",
	"ipam.go", "ipam_view.go", "ipam_apply.go", "ipam_free_upgrade.go",
	"namespace.go",
}

// sqlStatement matches a string that reads as a statement, or as a
// piece of one handed to a helper that completes it (a join's condition,
// an order).
var sqlStatement = regexp.MustCompile(`(?is)\b(select\b.*\bfrom|insert\s+into|delete\s+from|update\s+\w+\s+set|on\s+conflict|order\s+by|\w+\.deleted\s*=)\b`)

// runsStatements are the methods of database/sql's handles, and of the
// views' handles that wrap them, that run a statement: a kind behind the
// port calls none of them, whatever builds the statement.
var runsStatements = map[string]bool{
	"QueryContext": true, "QueryRowContext": true, "ExecContext": true, "PrepareContext": true,
	"Query": true, "QueryRow": true, "Exec": true, "Prepare": true,
}

// TestObjectKindsHoldNoSQL: the object model's kinds read and write their
// views only through the store port (ARCHITECTURE.md, "The views' store
// port"): none of their files imports database/sql, spells a statement
// or a piece of one, or runs one.
func TestObjectKindsHoldNoSQL(t *testing.T) {
	fset := token.NewFileSet()
	for _, name := range objectKindFiles {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "database/sql" || p == "database/sql/driver" {
				t.Errorf("%s imports %s", name, p)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && runsStatements[sel.Sel.Name] {
					t.Errorf("%s: runs a statement itself (%s)", fset.Position(call.Pos()), sel.Sel.Name)
				}
				return true
			}
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && sqlStatement.MatchString(s) {
				t.Errorf("%s: a statement of its own: %.60q", fset.Position(lit.Pos()), s)
			}
			return true
		})
	}
}
