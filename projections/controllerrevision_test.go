package projections

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
)

// TestControllerRevisionView: ControllerRevisions written through their
// Commands — created, renumbered, refused a change of data, released and
// deleted — read back as written on either engine, and a rebuild of the
// log gives the same rows.
func TestControllerRevisionView(t *testing.T) { viewOnEachEngine(t, runControllerRevisionView) }

func runControllerRevisionView(t *testing.T, log events.Log) {
	ctx := t.Context()
	if err := Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	w := NewWriter(log, clocktesting.NewFakeClock(t0), nil)
	revs := w.ControllerRevisionCommands()
	view := NewControllerRevisionView(log)
	owner := domain.OwnerReference{APIVersion: "apps/v1", Kind: "StatefulSet", Name: "web", UID: "sts-uid", Controller: true}
	data := json.RawMessage(`{"spec":{"template":{"$patch":"replace","spec":{"containers":[{"image":"nginx:1","name":"web"}]}}}}`)
	a, b := domain.Key{Namespace: "default", Name: "web-a"}, domain.Key{Namespace: "default", Name: "web-b"}
	for i, k := range []domain.Key{a, b} {
		if _, err := revs.Execute(ctx, k, domain.CreateControllerRevision{
			Meta: domain.ObjectMeta{Namespace: k.Namespace, Name: k.Name, UID: "uid-" + k.Name, Owners: []domain.OwnerReference{owner},
				Labels: map[string]string{domain.LabelControllerRevisionHashKey: k.Name[4:]}},
			Spec: domain.ControllerRevisionSpec{Data: data, Revision: int64(i + 1)}}); err != nil {
			t.Fatal(err)
		}
	}
	cur, err := revs.Execute(ctx, a, domain.RenumberControllerRevision{Revision: 3})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := log.Head(ctx)
	changed := cur.Spec
	changed.Data = json.RawMessage(`{"spec":{}}`)
	if _, err := revs.Execute(ctx, a, domain.UpdateControllerRevision{Meta: cur.ObjectMeta, Spec: changed}); !errors.Is(err, domain.ErrInvalid) {
		t.Fatalf("data changed: %v", err)
	}
	if after, _ := log.Head(ctx); after != head {
		t.Fatalf("a refused change moved the log from %d to %d", head, after)
	}
	if cur.Spec.Revision != 3 || cur.Version != 2 || cur.ResourceVersion != head || string(cur.Spec.Data) != string(data) {
		t.Errorf("after renumber: %+v (head %d)", cur, head)
	}
	if got, err := view.Get(ctx, "default", "web-a"); err != nil || !cmp.Equal(cur, got) {
		t.Errorf("view differs from the writer's answer (-writer +view):\n%s%v", cmp.Diff(cur, got), err)
	}
	if cur, err = revs.Execute(ctx, a, domain.ReleaseControllerRevision{UID: "sts-uid"}); err != nil || len(cur.Owners) != 0 {
		t.Fatalf("release: %+v %v", cur, err)
	}
	if _, err := revs.Execute(ctx, b, domain.DeleteControllerRevision{}); err != nil {
		t.Fatal(err)
	}
	if _, err := view.Get(ctx, "default", "web-b"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("get after delete: %v, want not found", err)
	}
	if list, _, err := view.List(ctx, "default"); err != nil || len(list) != 1 || list[0].Name != "web-a" {
		t.Errorf("list: %+v, %v", list, err)
	}
}
