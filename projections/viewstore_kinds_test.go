package projections

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sqlStatement matches a string that reads as a statement, or as a
// piece of one handed to a helper that completes it (a join's condition,
// an order).
var sqlStatement = regexp.MustCompile(`(?is)\b(select\b.*\bfrom|insert\s+into|delete\s+from|update\s+\w+\s+set|on\s+conflict|order\s+by|\w+\.deleted\s*=|create\s+(temporary\s+|temp\s+|unique\s+)?(table|index|view)|drop\s+(table|index|view)|alter\s+table|vacuum\b|set\s+transaction)\b`)

// runsStatements are the methods of database/sql's handles, and of the
// views' handles that wrap them, that run a statement: the views' code
// calls none of them, whatever builds the statement.
var runsStatements = map[string]bool{
	"QueryContext": true, "QueryRowContext": true, "ExecContext": true, "PrepareContext": true,
	"Query": true, "QueryRow": true, "Exec": true, "Prepare": true,
	"BeginTx": true,
}

// sqlIn is what the Go file name (its source src, or the file itself
// when src is nil) holds of SQL of its own: an import of database/sql or
// its driver interface, a string that reads as a statement or a piece of
// one, a call of a method that runs one.
func sqlIn(t *testing.T, name string, src any) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []string
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == "database/sql" || strings.HasPrefix(p, "database/sql/") {
			found = append(found, name+" imports "+p)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok {
			if sel, ok := call.Fun.(*ast.SelectorExpr); ok && runsStatements[sel.Sel.Name] {
				found = append(found, fset.Position(call.Pos()).String()+": runs a statement itself ("+sel.Sel.Name+")")
			}
			return true
		}
		lit, ok := n.(*ast.BasicLit)
		if !ok || lit.Kind != token.STRING {
			return true
		}
		if s, err := strconv.Unquote(lit.Value); err == nil && sqlStatement.MatchString(s) {
			found = append(found, fset.Position(lit.Pos()).String()+": a statement of its own: "+strconv.Quote(s))
		}
		return true
	})
	return found
}

// TestViewsHoldNoSQL: the views' code reads and writes its tables only
// through the store port (ARCHITECTURE.md, "The views' store port"):
// no file of package projections but its tests imports database/sql,
// spells a statement or a piece of one, or runs one. Their statements,
// and the database/sql handles they run on (the views' pool,
// viewstore.DB), are viewstore's: the views of each kind, the SQLite
// upgrades of rows an older herd wrote, the migrations, a rebuild's
// statements and the batches it writes its rows through, and replay
// --verify's copies and comparisons.
//
// projections/command, a package of its own, is the one exception: it
// holds the unit of work's transaction (command.Tx, command.ViewTx over
// database/sql's, reached through events.SQLTx) and SQLite's prepared
// ready writes, the handles the views' statements run on, and runs no
// view's statement of its own.
func TestViewsHoldNoSQL(t *testing.T) {
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		checked++
		for _, f := range sqlIn(t, name, nil) {
			t.Error(f)
		}
	}
	// Every non-test file of the package, not a list that a new file
	// escapes: a glob that found none would prove nothing.
	if checked == 0 {
		t.Fatal("no file of the package checked")
	}
}

// TestViewsHoldNoSQLFindsWhatIsPlanted: the check above finds an import
// of database/sql, a statement spelled in a string, and a statement run,
// each planted in an otherwise clean file.
func TestViewsHoldNoSQLFindsWhatIsPlanted(t *testing.T) {
	for _, tt := range []struct{ name, src string }{
		{"imports database/sql", "package projections\n\nimport _ \"database/sql\"\n"},
		{"imports the driver interface", "package projections\n\nimport _ \"database/sql/driver\"\n"},
		{"a select", "package projections\n\nconst q = `SELECT data FROM nodes WHERE name = ?`\n"},
		{"an insert", "package projections\n\nvar q = \"INSERT INTO leases (name) VALUES (?)\"\n"},
		{"an update", "package projections\n\nconst q = `UPDATE pods SET data = ?`\n"},
		{"a delete", "package projections\n\nvar q = \"DELETE FROM \" + \"pods\"\n"},
		{"a table made", "package projections\n\nconst q = `CREATE TABLE live_pods AS SELECT 1`\n"},
		{"an index made", "package projections\n\nconst q = `CREATE INDEX pods_by_node ON pods (node)`\n"},
		{"an index dropped", "package projections\n\nconst q = `DROP INDEX \"pods_by_node\"`\n"},
		{"a statement run", "package projections\n\nfunc f(x interface{ ExecContext() }) { x.ExecContext() }\n"},
		{"a transaction begun on a pool", "package projections\n\nfunc f(x interface{ BeginTx() }) { x.BeginTx() }\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if found := sqlIn(t, "planted.go", tt.src); len(found) == 0 {
				t.Errorf("nothing found in\n%s", tt.src)
			}
		})
	}
	if found := sqlIn(t, "clean.go", "package projections\n\nconst s = \"the node's labels, sorted by key\"\n"); len(found) != 0 {
		t.Errorf("found in a clean file: %q", found)
	}
}
