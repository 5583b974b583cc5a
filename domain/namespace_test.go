package domain

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNamespaceLifecycle(t *testing.T) {
	now := at(1)
	var ns Namespace
	apply := func(cmd NamespaceCommand, when int) []Event {
		t.Helper()
		evs, err := DecideNamespace(ns, cmd, at(when))
		if err != nil {
			t.Fatalf("%T: %v", cmd, err)
		}
		for _, e := range evs {
			ns = EvolveNamespace(ns, e)
		}
		return evs
	}
	apply(CreateNamespace{Meta: ObjectMeta{Name: "shop", UID: "u1", Labels: map[string]string{"team": "shop"}}}, 1)
	if !ns.Exists() || NamespacePhase(ns) != PhaseActive || ns.CreatedAt != now || ns.Labels["team"] != "shop" {
		t.Fatalf("after create: %+v", ns)
	}
	if err := NamespaceAcceptsObjects(ns, "shop"); err != nil {
		t.Errorf("an Active namespace refuses objects: %v", err)
	}
	if _, err := DecideNamespace(ns, CreateNamespace{Meta: ObjectMeta{Name: "shop"}}, at(2)); !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("create again: %v, want ErrAlreadyExists", err)
	}
	if evs := apply(EnsureNamespace{Name: "shop", Reason: "in use"}, 2); len(evs) != 0 {
		t.Errorf("ensure of an existing namespace appended %v", evs)
	}
	if _, err := DecideNamespace(ns, FinalizeNamespace{}, at(2)); !errors.Is(err, ErrConflict) {
		t.Errorf("finalize an Active namespace: %v, want ErrConflict", err)
	}
	if evs := apply(DeleteNamespace{}, 3); !cmp.Equal(evs, []Event{NamespaceTerminating{At: at(3)}}) {
		t.Errorf("delete: %v", evs)
	}
	if err := NamespaceAcceptsObjects(ns, "shop"); !errors.Is(err, ErrForbidden) || err.Error() != "unable to create new content in namespace shop because it is being terminated: forbidden" {
		t.Errorf("a terminating namespace takes objects: %v", err)
	}
	if evs := apply(DeleteNamespace{}, 4); len(evs) != 0 {
		t.Errorf("delete a terminating namespace again appended %v", evs)
	}
	if _, err := DecideNamespace(ns, CreateNamespace{Meta: ObjectMeta{Name: "shop"}}, at(4)); !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("create while terminating: %v, want ErrAlreadyExists", err)
	}
	apply(FinalizeNamespace{}, 5)
	if ns.Exists() || !ns.Deleted || ns.Version != 3 {
		t.Fatalf("after finalize: %+v", ns)
	}
	if err := NamespaceAcceptsObjects(ns, "shop"); !errors.Is(err, ErrNotFound) || err.Error() != `namespaces "shop" not found: not found` {
		t.Errorf("a gone namespace: %v", err)
	}
	apply(CreateNamespace{Meta: ObjectMeta{Name: "shop", UID: "u2"}}, 6)
	if !ns.Exists() || ns.UID != "u2" || ns.Labels != nil || ns.Version != 4 || ns.DeletionRequestedAt != nil {
		t.Errorf("created again: %+v", ns)
	}
}

func TestNamespaceRefusals(t *testing.T) {
	for _, tc := range []struct {
		name string
		ns   Namespace
		cmd  NamespaceCommand
		want error
	}{
		{"bad name", Namespace{}, CreateNamespace{Meta: ObjectMeta{Name: "Shop_1"}}, ErrInvalid},
		{"empty name", Namespace{}, CreateNamespace{}, ErrInvalid},
		{"long name", Namespace{}, CreateNamespace{Meta: ObjectMeta{Name: "a123456789012345678901234567890123456789012345678901234567890123"}}, ErrInvalid},
		{"bad label", Namespace{}, CreateNamespace{Meta: ObjectMeta{Name: "shop", Labels: map[string]string{"team": "a b"}}}, ErrInvalid},
		{"delete unknown", nsNamed("shop", 0, 0), DeleteNamespace{}, ErrNotFound},
		{"delete default", nsNamed("default", 1, 0), DeleteNamespace{}, ErrForbidden},
		{"delete kube-node-lease", nsNamed("kube-node-lease", 1, 0), DeleteNamespace{}, ErrForbidden},
		{"delete stale", nsNamed("shop", 1, 7), Precondition[NamespaceCommand]{ResourceVersion: 6, Command: DeleteNamespace{}}, ErrConflict},
		// As kube-apiserver's admission, before any precondition.
		{"delete default at a stale resourceVersion", nsNamed("default", 1, 7), Precondition[NamespaceCommand]{ResourceVersion: 6, Command: DeleteNamespace{}}, ErrForbidden},
		{"delete unknown at a resourceVersion", nsNamed("shop", 0, 0), Precondition[NamespaceCommand]{ResourceVersion: 6, Command: DeleteNamespace{}}, ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := DecideNamespace(tc.ns, tc.cmd, at(1))
			if !errors.Is(err, tc.want) || evs != nil {
				t.Errorf("events %v, error %v; want none and %v", evs, err, tc.want)
			}
		})
	}
}

// nsNamed is the namespace name as the view holds it at version and
// resourceVersion.
func nsNamed(name string, version, resourceVersion int64) Namespace {
	return Namespace{ObjectMeta: ObjectMeta{Name: name}, Version: version, ResourceVersion: resourceVersion}
}
