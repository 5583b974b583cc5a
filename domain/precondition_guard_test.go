package domain

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// keepsResourceVersion are the commands whose decision needs a
// resourceVersion for more than the stale check, each with why; every
// other command leaves optimistic concurrency to Precondition.
var keepsResourceVersion = map[string]string{
	// The precondition is on one target inside the set of kubelet
	// targets, the aggregate it decides on, which has no resourceVersion
	// of its own; a name not in the set must be refused too.
	"SetKubeletTarget": "a precondition on one member of the KubeletTargets set",
}

// TestOptimisticConcurrencyIsSaidOnce walks every command of every
// aggregate (a type with a method of an XCommand interface, read from
// the package's source, so a new command is walked without being listed)
// and fails if one carries a ResourceVersion of its own: a write based on
// a resourceVersion is the command in a Precondition, checked in one
// place (staleUnlessAt) with kube-apiserver's words.
func TestOptimisticConcurrencyIsSaidOnce(t *testing.T) {
	fset := token.NewFileSet()
	var files []*ast.File
	entries, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}

	// The methods of the command interfaces: decideNode, decideConfigMap...
	commandMethods := map[string]bool{}
	structs := map[string]*ast.StructType{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			switch typ := ts.Type.(type) {
			case *ast.InterfaceType:
				if strings.HasSuffix(ts.Name.Name, "Command") {
					for _, m := range typ.Methods.List {
						for _, name := range m.Names {
							commandMethods[name.Name] = true
						}
					}
				}
			case *ast.StructType:
				structs[ts.Name.Name] = typ
			}
			return true
		})
	}
	// The kinds on the object model share one (decideObject), so there
	// are fewer of them than aggregates.
	if len(commandMethods) < 8 {
		t.Fatalf("found the methods %v of only %d command interfaces; the walk is broken", commandMethods, len(commandMethods))
	}

	// The commands: every type with one of those methods.
	commands := map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv == nil || !commandMethods[fn.Name.Name] {
				continue
			}
			if name := receiverType(fn.Recv.List[0].Type); name != "" {
				commands[name] = true
			}
		}
	}
	for _, want := range []string{"Update", "DeleteNamespace", "UpdateLease", "Scale", "RecordStatus", "WarnCronJob", "SetKubeletTarget"} {
		if !commands[want] {
			t.Fatalf("the walk missed the command %s; it found %d", want, len(commands))
		}
	}

	for _, name := range slices.Sorted(maps.Keys(commands)) {
		st, ok := structs[name]
		if !ok || name == "Precondition" {
			continue // Precondition is where the resourceVersion goes
		}
		for _, field := range st.Fields.List {
			for _, id := range field.Names {
				if id.Name != "ResourceVersion" {
					continue
				}
				if _, kept := keepsResourceVersion[name]; kept {
					continue
				}
				t.Errorf("%s has a ResourceVersion field: wrap it in Precondition instead (or, if its decision needs the version for more than the stale check, say why in keepsResourceVersion)", name)
			}
		}
	}
	for name := range keepsResourceVersion {
		st, ok := structs[name]
		if !ok || !hasField(st, "ResourceVersion") {
			t.Errorf("keepsResourceVersion lists %s, which no longer has a ResourceVersion: take it off the list", name)
		}
	}
}

// TestNoEventCarriesAResourceVersion: a resourceVersion is a position in
// the log, given by the projection; no event payload holds one, so a
// replayed log gives every object the positions it had (herd replay
// --verify). A kubelet target's is zeroed before KubeletTargetSet
// records it, and left out of the JSON (omitempty).
func TestNoEventCarriesAResourceVersion(t *testing.T) {
	for _, typ := range EventTypes() {
		e, err := eventSchemas[typ].decode([]byte("{}"), json.Unmarshal)
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		rt := reflect.TypeOf(e)
		if rt.Kind() != reflect.Struct {
			continue
		}
		for i := range rt.NumField() {
			if f := rt.Field(i); f.Name == "ResourceVersion" {
				t.Errorf("event %s has a ResourceVersion field: the log position is the projection's, never the payload's", typ)
			}
		}
	}
	evs, err := DecideKubeletTargets(KubeletTargets{}, SetKubeletTarget{Target: KubeletTarget{Name: "k", URL: "https://127.0.0.1:10250", ResourceVersion: 9}}, at(1))
	if err != nil {
		t.Fatal(err)
	}
	payload, err := json.Marshal(evs[0])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(payload), "resourceVersion") {
		t.Errorf("KubeletTargetSet's payload holds a resourceVersion: %s", payload)
	}
}

// receiverType is the name of a method's receiver type, pointer or not,
// without type parameters.
func receiverType(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverType(x.X)
	case *ast.IndexExpr:
		return receiverType(x.X)
	case *ast.IndexListExpr:
		return receiverType(x.X)
	case *ast.Ident:
		return x.Name
	}
	return ""
}

// hasField says whether st declares a field of that name.
func hasField(st *ast.StructType, name string) bool {
	for _, f := range st.Fields.List {
		for _, id := range f.Names {
			if id.Name == name {
				return true
			}
		}
	}
	return false
}
