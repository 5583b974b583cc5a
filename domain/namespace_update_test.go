package domain

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// shop is the namespace shop, created at t0 with a label and an
// annotation, at log position 5.
func shop() Namespace {
	ns := EvolveNamespace(Namespace{}, NamespaceCreated{Name: "shop", UID: "u1",
		Labels: map[string]string{"team": "web"}, Annotations: map[string]string{"owner": "ann"}, At: t0})
	ns.ResourceVersion = 5
	return ns
}

func TestUpdateNamespace(t *testing.T) {
	now := at(30)
	terminating := EvolveNamespace(shop(), NamespaceTerminating{At: at(10)})
	gone := EvolveNamespace(terminating, NamespaceDeleted{At: at(20)})

	tests := []struct {
		name    string
		ns      Namespace
		cmd     NamespaceCommand
		want    []Event
		wantErr error
	}{
		{
			name: "labels and annotations become what the update says",
			ns:   shop(),
			cmd:  Precondition[NamespaceCommand]{ResourceVersion: 5, Command: UpdateNamespace{Meta: ObjectMeta{Labels: map[string]string{"team": "shop", "tier": "1"}}}},
			want: []Event{NamespaceUpdated{Labels: map[string]string{"team": "shop", "tier": "1"}, At: now,
				Changed: []string{"metadata.annotations.owner", "metadata.labels.team", "metadata.labels.tier"}}},
		},
		{
			name: "without a resourceVersion the update applies to whatever is there",
			ns:   shop(),
			cmd:  UpdateNamespace{Meta: ObjectMeta{Annotations: map[string]string{"owner": "bob"}}},
			want: []Event{NamespaceUpdated{Annotations: map[string]string{"owner": "bob"}, At: now,
				Changed: []string{"metadata.annotations.owner", "metadata.labels.team"}}},
		},
		{
			name: "an update that changes nothing records nothing",
			ns:   shop(),
			cmd:  UpdateNamespace{Meta: ObjectMeta{Name: "shop", UID: "u1", Labels: map[string]string{"team": "web"}, Annotations: map[string]string{"owner": "ann"}}},
		},
		{
			// kube-apiserver lets a terminating namespace's metadata
			// change: only new content in it is refused.
			name: "a terminating namespace can still be labelled",
			ns:   terminating,
			cmd:  UpdateNamespace{Meta: ObjectMeta{Labels: map[string]string{"team": "gone"}}},
			want: []Event{NamespaceUpdated{Labels: map[string]string{"team": "gone"}, At: now,
				Changed: []string{"metadata.annotations.owner", "metadata.labels.team"}}},
		},
		{name: "a stale resourceVersion", ns: shop(), cmd: Precondition[NamespaceCommand]{ResourceVersion: 4, Command: UpdateNamespace{Meta: ObjectMeta{Labels: map[string]string{"team": "x"}}}}, wantErr: ErrConflict},
		{name: "a namespace never seen", ns: nsNamed("shop", 0, 0), cmd: UpdateNamespace{}, wantErr: ErrNotFound},
		{name: "a namespace gone", ns: gone, cmd: UpdateNamespace{}, wantErr: ErrNotFound},
		{name: "another name", ns: shop(), cmd: UpdateNamespace{Meta: ObjectMeta{Name: "store"}}, wantErr: ErrInvalid},
		{name: "another uid", ns: shop(), cmd: UpdateNamespace{Meta: ObjectMeta{UID: "u2"}}, wantErr: ErrInvalid},
		{name: "a bad label", ns: shop(), cmd: UpdateNamespace{Meta: ObjectMeta{Labels: map[string]string{"team": "a b"}}}, wantErr: ErrInvalid},
		{name: "a bad annotation key", ns: shop(), cmd: UpdateNamespace{Meta: ObjectMeta{Annotations: map[string]string{"a b": "x"}}}, wantErr: ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DecideNamespace(tc.ns, tc.cmd, now)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUpdateNamespaceErrorsNameWhatIsWrong(t *testing.T) {
	for _, tc := range []struct {
		name string
		cmd  NamespaceCommand
		want string
	}{
		{"stale", Precondition[NamespaceCommand]{ResourceVersion: 4, Command: UpdateNamespace{}}, `Operation cannot be fulfilled on namespaces "shop": the object has been modified; ` +
			`please apply your changes to the latest version and try again: conflict`},
		{"name", UpdateNamespace{Meta: ObjectMeta{Name: "store"}}, `Namespace "shop" is invalid: metadata.name: Invalid value: "store": field is immutable`},
		{"label", UpdateNamespace{Meta: ObjectMeta{Labels: map[string]string{"team": "a b"}}}, `Namespace "shop" is invalid: metadata.labels: Invalid value: "a b": `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecideNamespace(shop(), tc.cmd, at(1))
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %v, want it to start %q", err, tc.want)
			}
		})
	}
}

// TestEvolveNamespaceUpdated: the update replaces both maps, keeps the
// rest, and shares no map with the event.
func TestEvolveNamespaceUpdated(t *testing.T) {
	e := NamespaceUpdated{Labels: map[string]string{"team": "shop"}, At: at(3)}
	before := shop()
	got := EvolveNamespace(before, e)
	want := before
	want.Labels, want.Annotations, want.Version = map[string]string{"team": "shop"}, nil, before.Version+1
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("namespace (-want +got):\n%s", diff)
	}
	if before.Labels["team"] != "web" {
		t.Errorf("the input namespace changed: %v", before.Labels)
	}
	got.Labels["team"] = "scribbled"
	if e.Labels["team"] != "shop" {
		t.Errorf("changing the result changed the event: %v", e.Labels)
	}
}
