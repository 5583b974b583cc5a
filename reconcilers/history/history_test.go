package history

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"herd/domain"
	"herd/reconcilers/reconcilerstest"
)

var t0 = time.Date(2026, 11, 29, 8, 0, 0, 0, time.UTC)

type store = reconcilerstest.Store[domain.ControllerRevision, domain.ControllerRevisionCommand]

func newStore() *store {
	return reconcilerstest.NewStore(func() time.Time { return t0 }, domain.DecideControllerRevision,
		func(r domain.ControllerRevision, ev domain.Event) domain.ControllerRevision {
			r = domain.EvolveControllerRevision(r, ev)
			r.ResourceVersion++
			return r
		})
}

var owner = domain.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "uid-web", Controller: true}

// creator makes the revision name with data, owned by web.
func creator(name string) func(int64) (domain.CreateControllerRevision, error) {
	return func(n int64) (domain.CreateControllerRevision, error) {
		return domain.CreateControllerRevision{
			Meta: domain.ObjectMeta{Namespace: "default", Name: name, UID: "uid-" + name, Owners: []domain.OwnerReference{owner}},
			Spec: domain.ControllerRevisionSpec{Data: json.RawMessage(`{"t":"` + name + `"}`), Revision: n},
		}, nil
	}
}

func owned(t *testing.T, s *store) []domain.ControllerRevision {
	t.Helper()
	revs, err := Claim(t.Context(), s, s, "default", domain.LabelSelector{}, owner)
	if err != nil {
		t.Fatal(err)
	}
	return revs
}

func numbers(revs []domain.ControllerRevision) map[string]int64 {
	out := map[string]int64{}
	for _, r := range revs {
		out[r.Name] = r.Spec.Revision
	}
	return out
}

// A template's revision is made once, numbered past the others; the same
// template again is left alone; an older template coming back (an undo)
// is renumbered as the newest rather than copied, as Kubernetes' history
// does, so the numbers say the order templates were last used in.
func TestEnsureMakesRenumbersOrLeavesTheTemplatesRevision(t *testing.T) {
	s := newStore()
	steps := []struct {
		name   string
		change Change
		want   map[string]int64
	}{
		{"web-a", Created, map[string]int64{"web-a": 1}},
		{"web-a", Unchanged, map[string]int64{"web-a": 1}},
		{"web-b", Created, map[string]int64{"web-a": 1, "web-b": 2}},
		{"web-a", Renumbered, map[string]int64{"web-a": 3, "web-b": 2}},
		{"web-c", Created, map[string]int64{"web-a": 3, "web-b": 2, "web-c": 4}},
	}
	for i, st := range steps {
		rev, after, change, err := Ensure(t.Context(), s, owned(t, s), st.name, creator(st.name))
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		if change != st.change || rev.Name != st.name {
			t.Errorf("step %d: Ensure(%s) = %s, change %d; want change %d", i, st.name, rev.Name, change, st.change)
		}
		if got := numbers(owned(t, s)); !sameNumbers(got, st.want) {
			t.Errorf("step %d: revisions %v, want %v", i, got, st.want)
		}
		if last := after[len(after)-1]; last.Name != st.name {
			t.Errorf("step %d: the returned list ends with %s, want the template's %s", i, last.Name, st.name)
		}
	}
	if got := s.Written["default/web-a"]; len(got) != 2 {
		t.Errorf("web-a's events %v: want its creation and one renumbering", got)
	}
}

func sameNumbers(a, b map[string]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Truncate keeps limit old revisions besides the live ones, deleting the
// oldest first and never one live says a pod still runs.
func TestTruncateDeletesTheOldestNotInUse(t *testing.T) {
	s := newStore()
	for _, n := range []string{"web-a", "web-b", "web-c", "web-d", "web-e"} {
		if _, _, _, err := Ensure(t.Context(), s, owned(t, s), n, creator(n)); err != nil {
			t.Fatal(err)
		}
	}
	live := func(r domain.ControllerRevision) bool { return r.Name == "web-a" || r.Name == "web-e" }
	deleted, err := Truncate(t.Context(), s, owned(t, s), live, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(deleted, []string{"web-b", "web-c"}) {
		t.Errorf("deleted %v, want the two oldest not in use, web-b and web-c", deleted)
	}
	if got := numbers(owned(t, s)); !sameNumbers(got, map[string]int64{"web-a": 1, "web-d": 4, "web-e": 5}) {
		t.Errorf("kept %v", got)
	}
	if deleted, err := Truncate(t.Context(), s, owned(t, s), live, 1); err != nil || len(deleted) != 0 {
		t.Errorf("a history within its limit: deleted %v, %v", deleted, err)
	}
	if deleted, err := Truncate(t.Context(), s, owned(t, s), live, 0); err != nil || !slices.Equal(deleted, []string{"web-d"}) {
		t.Errorf("limit 0: deleted %v, %v; want every old revision not in use", deleted, err)
	}
}

// A revision that cannot be made is reported, and nothing is returned as
// made.
func TestEnsureReportsARevisionItCannotMake(t *testing.T) {
	s := newStore()
	refused := errors.New("no room")
	_, after, change, err := Ensure(context.Background(), s, nil, "web-a", func(int64) (domain.CreateControllerRevision, error) {
		return domain.CreateControllerRevision{}, refused
	})
	if !errors.Is(err, refused) || change != Unchanged || len(after) != 0 || len(s.Events) != 0 {
		t.Errorf("Ensure = %v, %d, %v; want the error, nothing made", after, change, err)
	}
}

// TestClaimAdoptsOrphansAndReleasesStrays: the owner takes the revisions
// without a controller that its selector matches, lets go of its own
// that the selector no longer matches, and leaves another controller's
// and the orphans its selector does not match alone.
func TestClaimAdoptsOrphansAndReleasesStrays(t *testing.T) {
	s := newStore()
	other := domain.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "db", UID: "uid-db", Controller: true}
	for _, rev := range []struct {
		name   string
		labels map[string]string
		owners []domain.OwnerReference
	}{
		{"web-orphan", map[string]string{"app": "web"}, nil},
		{"web-mine", map[string]string{"app": "web"}, []domain.OwnerReference{owner}},
		{"web-stray", map[string]string{"app": "debug"}, []domain.OwnerReference{owner}},
		{"web-others", map[string]string{"app": "web"}, []domain.OwnerReference{other}},
		{"db-orphan", map[string]string{"app": "db"}, nil},
	} {
		if _, err := s.Execute(t.Context(), domain.Key{Namespace: "default", Name: rev.name}, domain.CreateControllerRevision{
			Meta: domain.ObjectMeta{Namespace: "default", Name: rev.name, UID: "uid-" + rev.name, Labels: rev.labels, Owners: rev.owners},
			Spec: domain.ControllerRevisionSpec{Data: json.RawMessage(`{}`), Revision: 1},
		}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := Claim(t.Context(), s, s, "default", domain.LabelSelector{MatchLabels: map[string]string{"app": "web"}}, owner)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, rev := range got {
		names = append(names, rev.Name)
	}
	if !slices.Equal(names, []string{"web-mine", "web-orphan"}) {
		t.Errorf("claimed %v, want web-mine and the adopted web-orphan", names)
	}
	all, _, err := s.List(t.Context(), "default")
	if err != nil {
		t.Fatal(err)
	}
	for _, rev := range all {
		var controller string
		for _, o := range rev.Owners {
			if o.Controller {
				controller = o.Name
			}
		}
		want := map[string]string{"web-orphan": "web", "web-mine": "web", "web-stray": "", "web-others": "db", "db-orphan": ""}[rev.Name]
		if controller != want {
			t.Errorf("%s is controlled by %q, want %q", rev.Name, controller, want)
		}
	}
}
