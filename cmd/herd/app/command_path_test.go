package app

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// returnsEvents reports whether t is a function type whose results
// include a slice of events ([]domain.Event, or []Event inside domain).
func returnsEvents(t ast.Expr) bool {
	ft, ok := t.(*ast.FuncType)
	if !ok || ft.Results == nil {
		return false
	}
	for _, r := range ft.Results.List {
		arr, ok := r.Type.(*ast.ArrayType)
		if !ok || arr.Len != nil {
			continue
		}
		switch el := arr.Elt.(type) {
		case *ast.SelectorExpr:
			if el.Sel.Name == "Event" {
				return true
			}
		case *ast.Ident:
			if el.Name == "Event" {
				return true
			}
		}
	}
	return false
}

// receiverName is the name of a method's receiver type, "" for a function.
func receiverName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return ""
	}
	t := fn.Recv.List[0].Type
	if star, ok := t.(*ast.StarExpr); ok {
		t = star.X
	}
	switch g := t.(type) { // a generic type's receiver: aggregate[S]
	case *ast.IndexExpr:
		t = g.X
	case *ast.IndexListExpr:
		t = g.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// closuresAroundUnitOfWork returns, for one Go source file of projections,
// every exported way to hand the unit of work a closure that returns
// events: an exported function or method of an exported type with such a
// parameter (Writer.UpdateNode and its kind), or an exported field of
// such a type in an exported struct (projections.PodUpdate).
func closuresAroundUnitOfWork(fset *token.FileSet, f *ast.File) []string {
	var found []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			if recv := receiverName(d); d.Recv != nil && !ast.IsExported(recv) {
				continue
			}
			for _, p := range d.Type.Params.List {
				if returnsEvents(p.Type) {
					name := d.Name.Name
					if recv := receiverName(d); recv != "" {
						name = recv + "." + name
					}
					found = append(found, fset.Position(d.Pos()).String()+": "+name+" takes a closure that returns events")
				}
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok || !ts.Name.IsExported() {
					continue
				}
				st, ok := ts.Type.(*ast.StructType)
				if !ok {
					continue
				}
				for _, field := range st.Fields.List {
					if !returnsEvents(field.Type) {
						continue
					}
					for _, id := range field.Names {
						if id.IsExported() {
							found = append(found, fset.Position(field.Pos()).String()+": "+ts.Name.Name+"."+id.Name+" is a closure that returns events")
						}
					}
				}
			}
		}
	}
	return found
}

// TestOneCommandPath keeps the closures around the unit of work gone:
// projections offers every aggregate its Execute (ARCHITECTURE.md, "the
// command layer") and recorded events their AppendRecorded, and nothing
// through which a caller of its own decides inside the unit of work.
func TestOneCommandPath(t *testing.T) {
	dir, err := filepath.Abs("../../../projections")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	var found []string
	files := 0
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		files++
		found = append(found, closuresAroundUnitOfWork(fset, f)...)
	}
	if files < 10 {
		t.Fatalf("read %d source files of projections in %s; the walk is broken", files, dir)
	}
	for _, f := range found {
		t.Errorf("%s: issue the command through the aggregate's Execute", f)
	}
}

// TestOneCommandPathChecker shows the check catches what it is for, and
// lets Execute, recorded events and unexported helpers through.
func TestOneCommandPathChecker(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want int
	}{
		{"closure method", `package p
func (w *Writer) UpdateNode(ctx context.Context, name string, update func(domain.Node) ([]domain.Event, error)) (domain.Node, error) {
	return nodes.update(ctx, w, name, update)
}`, 1},
		{"singleton closure method", `package p
func (w *Writer) UpdateFleetHealth(ctx context.Context, update func(domain.FleetHealth) ([]domain.Event, error)) (domain.FleetHealth, error) {
	return fleet.update(ctx, w, fleetKey, update)
}`, 1},
		{"closure function", `package p
func Update(ctx context.Context, w *Writer, decide func(domain.Pod) ([]domain.Event, error)) error { return nil }`, 1},
		{"batch closure", `package p
type PodUpdate struct {
	Namespace, Name string
	Update          func(domain.Pod) ([]domain.Event, error)
}`, 1},
		{"execute", `package p
func (c nodeCommands) Execute(ctx context.Context, key domain.Key, cmd domain.NodeCommand) (domain.Node, error) { return c.run(ctx, key, cmd) }
func (w *Writer) NodeCommands() domain.Executor[domain.Node, domain.NodeCommand] { return w.nodes }`, 0},
		{"recorded events", `package p
func (w *Writer) AppendRecorded(ctx context.Context, stream string, evs []domain.Event) error { return nil }`, 0},
		{"unexported", `package p
func (w *Writer) updateIPPool(ctx context.Context, decide func(domain.IPPool) ([]domain.Event, error)) error { return nil }
func (a *aggregate[S]) Update(ctx context.Context, decide func(S) ([]domain.Event, error)) error { return nil }
type podUpdate struct{ Update func(domain.Pod) ([]domain.Event, error) }
type PodChange struct{ update func(domain.Pod) ([]domain.Event, error) }`, 0},
		{"another closure", `package p
func (w *Writer) EnsureNamespaces(ctx context.Context, uid func() string) ([]string, error) { return nil, nil }`, 0},
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
