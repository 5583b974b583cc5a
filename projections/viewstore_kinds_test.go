package projections

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
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

// sqlInDir is what the non-test Go files of dir hold of SQL of their
// own (sqlIn), and how many files it checked: every one the directory
// holds, a glob rather than a list that a new file escapes.
func sqlInDir(t *testing.T, dir string) (found []string, checked int) {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		checked++
		found = append(found, sqlIn(t, name, nil)...)
	}
	return found, checked
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
func TestViewsHoldNoSQL(t *testing.T) {
	found, checked := sqlInDir(t, ".")
	for _, f := range found {
		t.Error(f)
	}
	// A glob that found none would prove nothing.
	if checked == 0 {
		t.Fatal("no file of the package checked")
	}
}

// TestTheCommandLayerHoldsNoSQL: the command layer (projections/command)
// is held to the same as the views, with no exception: the unit of
// work's transaction as the views write it (events.ViewTx), a prepared
// write's recorded statements (events.Recorder), SQLite's statements
// prepared outside the write lock (events.ViewStatements) and the
// savepoints are the log's engine's, in events; the command layer holds
// them, imports no database/sql, spells no statement and runs none
// itself.
func TestTheCommandLayerHoldsNoSQL(t *testing.T) {
	found, checked := sqlInDir(t, "command")
	for _, f := range found {
		t.Error(f)
	}
	if checked == 0 {
		t.Fatal("no file of projections/command checked")
	}
}

// TestNoSQLInADirectoryFindsWhatIsPlanted: the check of a directory
// reads every non-test file it holds, a new one included, and only
// those: a planted file among clean ones is found and named, and a
// test's SQL is left alone.
func TestNoSQLInADirectoryFindsWhatIsPlanted(t *testing.T) {
	dir := t.TempDir()
	for name, src := range map[string]string{
		"clean.go":        "package command\n\nconst s = \"the stream moved since the command was decided\"\n",
		"helpers_test.go": "package command\n\nimport _ \"database/sql\"\n\nconst q = `SELECT n FROM test_counters`\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if found, checked := sqlInDir(t, dir); len(found) != 0 || checked != 1 {
		t.Fatalf("a clean directory: %d files checked, found %q; want 1 checked, nothing found", checked, found)
	}
	planted := filepath.Join(dir, "planted.go")
	if err := os.WriteFile(planted, []byte("package command\n\nimport _ \"database/sql\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	found, checked := sqlInDir(t, dir)
	if checked != 2 || len(found) != 1 || !strings.Contains(found[0], "planted.go imports database/sql") {
		t.Errorf("with a planted file: %d files checked, found %q; want 2 checked, the planted import found", checked, found)
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
