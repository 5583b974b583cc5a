package projections

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	clocktesting "k8s.io/utils/clock/testing"

	"herd/domain"
	"herd/events"
	"herd/events/eventstest"
	"herd/events/pgtest"
)

// TestDaemonSetViewSQLite and TestDaemonSetViewPostgres: DaemonSets
// written through their Commands read back as written on either engine,
// list by namespace at the log's head, page in key order with their
// tombstones, and a rebuild of the log gives the same rows.
func TestDaemonSetViewSQLite(t *testing.T) {
	store := openStore(t)
	runDaemonSetView(t, store.Log(), func(t *testing.T) { requireRebuildEqual(t, store) })
}

func TestDaemonSetViewPostgres(t *testing.T) {
	log := eventstest.OpenPostgres(t, pgtest.URL(t))
	if err := Migrate(t.Context(), log); err != nil {
		t.Fatal(err)
	}
	runDaemonSetView(t, log, nil)
}

// contractDaemonSet creates a DaemonSet of log collectors in ns.
func contractDaemonSet(ns, name string) domain.CreateDaemonSet {
	labels := map[string]string{"app": name}
	return domain.CreateDaemonSet{
		Meta: domain.ObjectMeta{Namespace: ns, Name: name, UID: "uid-ds-" + name},
		Spec: domain.DaemonSetSpec{
			Selector: domain.LabelSelector{MatchLabels: labels},
			Template: domain.PodTemplate{Labels: labels, Spec: domain.PodSpec{Containers: []domain.Container{{Name: "c", Image: "fluent-bit"}}}},
			UpdateStrategy: domain.DaemonSetUpdateStrategy{Type: domain.DaemonSetRollingUpdate,
				RollingUpdate: &domain.RollingUpdateDaemonSet{MaxUnavailable: domain.IntOrPercent{Value: 1}}},
			RevisionHistoryLimit: 10,
		},
	}
}

// runDaemonSetView writes DaemonSets to log, checks what the view reads,
// and then runs rebuilt, if any, to compare a rebuild.
func runDaemonSetView(t *testing.T, log events.Log, rebuilt func(t *testing.T)) {
	ctx := t.Context()
	if err := Migrate(ctx, log); err != nil {
		t.Fatal(err)
	}
	w := NewWriter(log, clocktesting.NewFakeClock(t0), nil)
	dss := w.DaemonSetCommands()
	view := NewDaemonSetView(log)
	for _, k := range []domain.Key{{Namespace: "default", Name: "logs"}, {Namespace: "default", Name: "dns"}, {Namespace: "lab", Name: "logs"}} {
		if _, err := dss.Execute(ctx, k, contractDaemonSet(k.Namespace, k.Name)); err != nil {
			t.Fatal(err)
		}
	}
	logs := domain.Key{Namespace: "default", Name: "logs"}
	spec := contractDaemonSet("default", "logs").Spec
	spec.Template.Spec.Containers[0].Image = "fluent-bit:4"
	changed, err := dss.Execute(ctx, logs, domain.UpdateDaemonSet{Spec: spec})
	if err != nil {
		t.Fatal(err)
	}
	head, _ := log.Head(ctx)
	if changed.Generation != 2 || changed.TemplateGeneration != 2 || changed.Version != 2 || changed.ResourceVersion != head {
		t.Errorf("after a new template: %+v (head %d)", changed, head)
	}
	if changed, err = dss.Execute(ctx, logs, domain.Precondition[domain.DaemonSetCommand]{ResourceVersion: 1,
		Command: domain.RecordDaemonSetStatus{Status: domain.DaemonSetStatus{DesiredNumberScheduled: 3}}}); !errors.Is(err, domain.ErrConflict) {
		t.Errorf("status at a stale resourceVersion: %v, want a conflict", err)
	}
	if h, _ := log.Head(ctx); h != head {
		t.Errorf("a refusal moved the head from %d to %d", head, h)
	}
	if changed, err = dss.Execute(ctx, logs, domain.RecordDaemonSetStatus{Status: domain.DaemonSetStatus{DesiredNumberScheduled: 3, ObservedGeneration: 2}}); err != nil {
		t.Fatal(err)
	}
	if got, err := view.Get(ctx, "default", "logs"); err != nil || !cmp.Equal(changed, got) {
		t.Errorf("view differs from the writer's answer (-writer +view):\n%s%v", cmp.Diff(changed, got), err)
	}
	if _, err := dss.Execute(ctx, domain.Key{Namespace: "default", Name: "dns"}, domain.DeleteDaemonSet{}); err != nil {
		t.Fatal(err)
	}
	if _, err := view.Get(ctx, "default", "dns"); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("get after delete: %v, want not found", err)
	}
	for _, tt := range []struct {
		namespace string
		want      []string
	}{{"", []string{"default/logs", "lab/logs"}}, {"lab", []string{"lab/logs"}}, {"nowhere", nil}} {
		list, at, err := view.List(ctx, tt.namespace)
		var keys []string
		for _, ds := range list {
			keys = append(keys, ds.Namespace+"/"+ds.Name)
		}
		if h, _ := log.Head(ctx); err != nil || at != h || !cmp.Equal(tt.want, keys) {
			t.Errorf("List(%q): %v at %d (head %d), %v; want %v", tt.namespace, keys, at, h, err, tt.want)
		}
	}
	all, _, err := view.Rows(ctx, "", 0)
	if err != nil || len(all) != 3 || !all[0].Deleted || all[1].Name != "logs" {
		t.Errorf("rows, the tombstone of default/dns first: %+v, %v", all, err)
	}
	if rebuilt != nil {
		rebuilt(t)
	}
}
