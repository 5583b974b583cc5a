package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// repositoryUpdate matches the repositories' unit-of-work methods, which
// take the caller's closure: only projections, behind Execute, calls
// them so.
var repositoryUpdate = regexp.MustCompile(`^Update(Node|Pod|Pods|Lease|ConfigMap|Namespace|IPPool|FleetHealth|DeviceBinding|KubeletTargets)$`)

// closuresAroundUnitOfWork returns, for one Go source file, where it calls
// an Update<Aggregate> method with a function literal, or builds a
// projections.PodUpdate (a closure for the pods' batch).
func closuresAroundUnitOfWork(fset *token.FileSet, f *ast.File) []string {
	var found []string
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok || !repositoryUpdate.MatchString(sel.Sel.Name) {
				return true
			}
			for _, arg := range n.Args {
				if _, ok := arg.(*ast.FuncLit); ok {
					found = append(found, fset.Position(n.Pos()).String()+": "+sel.Sel.Name+" with a closure")
				}
			}
		case *ast.CompositeLit:
			if sel, ok := n.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "PodUpdate" {
				found = append(found, fset.Position(n.Pos()).String()+": a PodUpdate closure")
			}
		}
		return true
	})
	return found
}

// TestOneCommandPath keeps the closures around the unit of work gone:
// outside projections, which implements Execute, every command goes
// through an aggregate's Execute (ARCHITECTURE.md, "Layers and packages"), not a closure of its own.
func TestOneCommandPath(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("module root %s: %v", root, err)
	}
	fset := token.NewFileSet()
	var found []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "projections" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "vendor" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		found = append(found, closuresAroundUnitOfWork(fset, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range found {
		t.Errorf("%s: issue the command through the aggregate's Execute", f)
	}
}

// TestOneCommandPathChecker shows the check catches what it is for, and
// lets Execute and a plain UpdateX call through.
func TestOneCommandPathChecker(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want int
	}{
		{"closure", `package p
func f() {
	_, _ = s.Nodes.UpdateNode(ctx, name, func(n domain.Node) ([]domain.Event, error) {
		return domain.DecideNode(n, cmd, now)
	})
}`, 1},
		{"singleton closure", `package p
func f() { repo.UpdateFleetHealth(ctx, func(f domain.FleetHealth) ([]domain.Event, error) { return nil, nil }) }`, 1},
		{"batch closure", `package p
var u = projections.PodUpdate{Namespace: "a", Name: "b", Update: func(p domain.Pod) ([]domain.Event, error) { return nil, nil }}`, 1},
		{"execute", `package p
func f() { _, _ = s.Nodes.Execute(ctx, domain.Key{Name: name}, domain.DeleteNode{}) }`, 0},
		{"update without a closure", `package p
func f() { _, _ = r.repo.UpdatePod(ctx, u.Namespace, u.Name, u.Update) }`, 0},
		{"another update", `package p
func f() { x.UpdateStatus(ctx, func() {}) }`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, "planted.go", tt.src, 0)
			if err != nil {
				t.Fatal(err)
			}
			if got := closuresAroundUnitOfWork(fset, f); len(got) != tt.want {
				t.Errorf("found %q, want %d", got, tt.want)
			}
		})
	}
}
