package domain_test

import (
	"bufio"
	"bytes"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// The import rules of ARCHITECTURE.md ("Imports point inward"), checked over the
// whole module: a package that imports what its layer must not fails here,
// naming the import and the rule. The test lives beside the domain because
// the domain is what the rules protect first; it reads the module with
// `go list`, so it needs nothing but the go command that runs it. Only
// non-test imports are checked: a test may build the layer above it (as
// herdclient's tests run the real httpapi server).

// importRule forbids the packages it covers (from, and everything under
// it) one kind of import.
type importRule struct {
	from   string
	why    string
	forbid func(imp string) bool
}

// under reports whether path is pkg or a package below it.
func under(path, pkg string) bool { return path == pkg || strings.HasPrefix(path, pkg+"/") }

// ofHerd is a forbid that matches any of the given herd packages and the
// packages under them.
func ofHerd(pkgs ...string) func(string) bool {
	return func(imp string) bool {
		for _, p := range pkgs {
			if under(imp, p) {
				return true
			}
		}
		return false
	}
}

// standard reports whether imp is in Go's standard library: the first
// element of a standard import path has no dot, and herd's own module
// path is the one such path that is not standard.
func standard(imp string) bool {
	first, _, _ := strings.Cut(imp, "/")
	return !strings.Contains(first, ".") && first != "herd"
}

var importRules = []importRule{
	{"herd/domain", "the domain imports only the standard library",
		func(imp string) bool { return !standard(imp) }},
	{"herd/events", "events knows nothing of domain or anything built on the log",
		ofHerd("herd/domain", "herd/projections", "herd/reconcilers", "herd/adapters", "herd/cmd")},
	{"herd/projections", "projections import domain and events, nothing above them",
		ofHerd("herd/reconcilers", "herd/adapters", "herd/cmd")},
	{"herd/projections/command", "the command layer imports the domain and events only: the read models describe each kind to it",
		func(imp string) bool {
			return under(imp, "herd") && !under(imp, "herd/domain") && !under(imp, "herd/events") && !under(imp, "herd/projections/command")
		}},
	{"herd/reconcilers", "reconcilers act through domain commands and adapters' interfaces, never an adapter package",
		ofHerd("herd/adapters", "herd/cmd")},
	{"herd/adapters", "no adapter reaches into another's HTTP layer; shared Kubernetes conversions are in adapters/conversions",
		ofHerd("herd/adapters/httpapi", "herd/cmd")},
	{"herd/adapters/conversions", "conversions imports the domain and Kubernetes' API types, nothing else of herd",
		func(imp string) bool { return under(imp, "herd") && imp != "herd/domain" }},
	{"herd/adapters", noSQL, sql},
	{"herd/reconcilers", noSQL, sql},
	{"herd/cmd", noSQL, sql},
}

// noSQL is the storage port of ARCHITECTURE.md: SQL and database/sql live only in
// the engines (events, projections).
const noSQL = "no SQL above the storage port: the log through events.Log, the views through projections"

// sql matches database/sql and the engines' drivers.
func sql(imp string) bool {
	return imp == "database/sql" || under(imp, "github.com/mattn/go-sqlite3") || under(imp, "github.com/jackc/pgx/v5")
}

func TestImportsPointInward(t *testing.T) {
	if testing.Short() {
		t.Skip("reads the whole module with go list")
	}
	// Every platform herd builds for: the illumos agent has files of its own.
	for _, goos := range []string{"linux", "illumos"} {
		t.Run(goos, func(t *testing.T) {
			pkgs := moduleImports(t, goos)
			for _, pkg := range slices.Sorted(maps.Keys(pkgs)) {
				imports := pkgs[pkg]
				for _, r := range importRules {
					if !under(pkg, r.from) || exempt(pkg, r) {
						continue
					}
					for _, imp := range imports {
						if r.forbid(imp) {
							t.Errorf("%s imports %s: %s (ARCHITECTURE.md, Layers and packages)", pkg, imp, r.why)
						}
					}
				}
			}
		})
	}
}

// exempt is the one package a rule's subject would otherwise include
// against itself: httpapi is the HTTP layer the adapter rule protects.
func exempt(pkg string, r importRule) bool {
	return r.from == "herd/adapters" && r.why != noSQL && under(pkg, "herd/adapters/httpapi")
}

// moduleImports lists every package of the module with its non-test
// imports, as built for goos.
func moduleImports(t *testing.T, goos string) map[string][]string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), "go", "list", "-e", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "herd/...")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64")
	if goos != "linux" {
		cmd.Env = append(cmd.Env, "CGO_ENABLED=0") // as `make illumos` builds it
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	pkgs := map[string][]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 0 {
			pkgs[fields[0]] = fields[1:]
		}
	}
	if len(pkgs) == 0 {
		t.Fatal("go list found no packages in the module")
	}
	return pkgs
}
