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
	apply(CreateNamespace{Name: "shop", UID: "u1", Labels: map[string]string{"team": "shop"}}, 1)
	if !ns.Exists() || ns.Phase() != PhaseActive || ns.CreatedAt != now || ns.Labels["team"] != "shop" {
		t.Fatalf("after create: %+v", ns)
	}
	if err := ns.AcceptsObjects("shop"); err != nil {
		t.Errorf("an Active namespace refuses objects: %v", err)
	}
	if _, err := DecideNamespace(ns, CreateNamespace{Name: "shop"}, at(2)); !errors.Is(err, ErrAlreadyExists) {
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
	if err := ns.AcceptsObjects("shop"); !errors.Is(err, ErrForbidden) || err.Error() != "unable to create new content in namespace shop because it is being terminated: forbidden" {
		t.Errorf("a terminating namespace takes objects: %v", err)
	}
	if evs := apply(DeleteNamespace{}, 4); len(evs) != 0 {
		t.Errorf("delete a terminating namespace again appended %v", evs)
	}
	if _, err := DecideNamespace(ns, CreateNamespace{Name: "shop"}, at(4)); !errors.Is(err, ErrAlreadyExists) {
		t.Errorf("create while terminating: %v, want ErrAlreadyExists", err)
	}
	apply(FinalizeNamespace{}, 5)
	if ns.Exists() || !ns.Deleted || ns.Version != 3 {
		t.Fatalf("after finalize: %+v", ns)
	}
	if err := ns.AcceptsObjects("shop"); !errors.Is(err, ErrNotFound) || err.Error() != `namespaces "shop" not found: not found` {
		t.Errorf("a gone namespace: %v", err)
	}
	apply(CreateNamespace{Name: "shop", UID: "u2"}, 6)
	if !ns.Exists() || ns.UID != "u2" || ns.Labels != nil || ns.Version != 4 || !ns.TerminatingSince.IsZero() {
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
		{"bad name", Namespace{}, CreateNamespace{Name: "Shop_1"}, ErrInvalid},
		{"empty name", Namespace{}, CreateNamespace{}, ErrInvalid},
		{"long name", Namespace{}, CreateNamespace{Name: "a123456789012345678901234567890123456789012345678901234567890123"}, ErrInvalid},
		{"bad label", Namespace{}, CreateNamespace{Name: "shop", Labels: map[string]string{"team": "a b"}}, ErrInvalid},
		{"delete unknown", Namespace{Name: "shop"}, DeleteNamespace{}, ErrNotFound},
		{"delete default", Namespace{Name: "default", Version: 1}, DeleteNamespace{}, ErrForbidden},
		{"delete kube-node-lease", Namespace{Name: "kube-node-lease", Version: 1}, DeleteNamespace{}, ErrForbidden},
		{"delete stale", Namespace{Name: "shop", Version: 1, ResourceVersion: 7}, Precondition[NamespaceCommand]{ResourceVersion: 6, Command: DeleteNamespace{}}, ErrConflict},
		// As kube-apiserver's admission, before any precondition.
		{"delete default at a stale resourceVersion", Namespace{Name: "default", Version: 1, ResourceVersion: 7}, Precondition[NamespaceCommand]{ResourceVersion: 6, Command: DeleteNamespace{}}, ErrForbidden},
		{"delete unknown at a resourceVersion", Namespace{Name: "shop"}, Precondition[NamespaceCommand]{ResourceVersion: 6, Command: DeleteNamespace{}}, ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := DecideNamespace(tc.ns, tc.cmd, at(1))
			if !errors.Is(err, tc.want) || evs != nil {
				t.Errorf("events %v, error %v; want none and %v", evs, err, tc.want)
			}
		})
	}
}
