package reconcilers_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/fx"

	"herd/domain"
	"herd/events"
	"herd/reconcilers"
)

// replicaSets is a Lister of ReplicaSets, or of an error.
type replicaSets struct {
	all []domain.ReplicaSet
	err error
	// asked is the namespaces it was asked for.
	asked []string
}

func (l *replicaSets) List(_ context.Context, namespace string) ([]domain.ReplicaSet, int64, error) {
	l.asked = append(l.asked, namespace)
	return l.all, 7, l.err
}

func replicaSet(namespace, name string) domain.ReplicaSet {
	var rs domain.ReplicaSet
	rs.Namespace, rs.Name = namespace, name
	return rs
}

// TestKindResyncsEveryObjectOfItsKind: a reconciler over a kind is named,
// resynced at its period, and its resync is the key of every object of
// the kind, of every namespace.
func TestKindResyncsEveryObjectOfItsKind(t *testing.T) {
	objects := &replicaSets{all: []domain.ReplicaSet{replicaSet("default", "web"), replicaSet("shop", "cart")}}
	k := reconcilers.NewKind("replicaset", domain.ReplicaSetAggregate, 45*time.Second, objects)
	if k.Name() != "replicaset" || k.ResyncPeriod() != 45*time.Second {
		t.Errorf("name %q, period %s", k.Name(), k.ResyncPeriod())
	}
	keys, err := k.Resync(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := []reconcilers.Key{
		{Aggregate: domain.ReplicaSetAggregate, Namespace: "default", Name: "web"},
		{Aggregate: domain.ReplicaSetAggregate, Namespace: "shop", Name: "cart"},
	}
	if !slices.Equal(keys, want) {
		t.Errorf("keys %v, want %v", keys, want)
	}
	if !slices.Equal(objects.asked, []string{""}) {
		t.Errorf("listed namespaces %q, want every one", objects.asked)
	}
	if got := k.ObjectKey("default", "web"); got != want[0] {
		t.Errorf("object key %v", got)
	}
}

// TestKindResyncNamesWhatItCouldNotList: a failed list fails the resync,
// naming the kind.
func TestKindResyncNamesWhatItCouldNotList(t *testing.T) {
	broken := errors.New("disk on fire")
	k := reconcilers.NewKind("replicaset", domain.ReplicaSetAggregate, time.Second, &replicaSets{err: broken})
	keys, err := k.Resync(t.Context())
	if !errors.Is(err, broken) || !strings.Contains(err.Error(), "list replicasets") || keys != nil {
		t.Errorf("keys %v, err %v", keys, err)
	}
}

// TestKindActsAsItsReconciler: what a reconciler writes names herd's
// system user of its name as the actor and the reconciler as the source,
// and keeps the cause the context carries.
func TestKindActsAsItsReconciler(t *testing.T) {
	k := reconcilers.NewKind("job", domain.JobAggregate, time.Second, (reconcilers.Lister[domain.Job])(nil))
	caused := events.WithMetadata(t.Context(), events.Metadata{CausationID: "c", CorrelationID: "r"})
	got := events.MetadataFrom(k.Acting(caused))
	want := events.Metadata{Actor: "system:herd:job", Source: "reconciler/job", CausationID: "c", CorrelationID: "r"}
	if got != want {
		t.Errorf("metadata %+v, want %+v", got, want)
	}
}

// settings are a test reconciler's Config.
type settings struct{ Period time.Duration }

// needs are what the test reconciler asks the app for.
type needs struct {
	fx.In

	Objects reconcilers.Lister[domain.ReplicaSet]
}

// overKind is a reconciler that is only its Kind.
type overKind struct {
	reconcilers.Kind[domain.ReplicaSet]
}

func (overKind) Watches() *reconcilers.Watches { return reconcilers.Watch() }

func (overKind) Reconcile(context.Context, reconcilers.Key) (reconcilers.Result, error) {
	return reconcilers.Result{}, nil
}

// configuredModule is the test reconciler's module, which refuses a
// period under a second.
var configuredModule = reconcilers.Configured("kind", func() settings { return settings{Period: time.Minute} },
	func(cfg settings, p needs) (*overKind, error) {
		if cfg.Period < time.Second {
			return nil, fmt.Errorf("kind resync period %s: want a second or more", cfg.Period)
		}
		return &overKind{reconcilers.NewKind("kind", domain.ReplicaSetAggregate, cfg.Period, p.Objects)}, nil
	})

// TestConfiguredPutsTheReconcilerInTheGroup: the module of a reconciler
// with settings builds it from what the app provides, with the settings
// the app supplies or the defaults when it supplies none, and fails the
// app when they are wrong.
func TestConfiguredPutsTheReconcilerInTheGroup(t *testing.T) {
	for _, tt := range []struct {
		name       string
		extra      fx.Option
		wantResync time.Duration
		wantErr    string
	}{
		{"defaults", fx.Options(), time.Minute, ""},
		{"settings supplied", fx.Supply(settings{Period: 5 * time.Second}), 5 * time.Second, ""},
		{"wrong settings", fx.Supply(settings{Period: time.Millisecond}), 0, "kind resync period 1ms"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			objects := &replicaSets{all: []domain.ReplicaSet{replicaSet("default", "web")}}
			var got struct {
				fx.In
				All []reconcilers.Reconciler `group:"reconcilers"`
			}
			app := fx.New(fx.NopLogger,
				fx.Provide(func() reconcilers.Lister[domain.ReplicaSet] { return objects }),
				tt.extra,
				configuredModule,
				fx.Populate(&got),
			)
			if tt.wantErr != "" {
				if err := app.Err(); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want it to name %q", err, tt.wantErr)
				}
				return
			}
			if err := app.Err(); err != nil {
				t.Fatal(err)
			}
			if len(got.All) != 1 || got.All[0].Name() != "kind" {
				t.Fatalf("group: %v", got.All)
			}
			rs, ok := got.All[0].(reconcilers.Resyncer)
			if !ok || rs.ResyncPeriod() != tt.wantResync {
				t.Fatalf("resync period: %v", got.All[0])
			}
			if keys, err := rs.Resync(t.Context()); err != nil || len(keys) != 1 || keys[0].Name != "web" {
				t.Errorf("resync: %v, %v", keys, err)
			}
		})
	}
}

// TestPositiveNamesTheSettingAndItsValue: a setting of zero or less is
// refused in words that name it, its value and what is wanted; one above
// zero passes.
func TestPositiveNamesTheSettingAndItsValue(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{reconcilers.Positive("job resync period", -time.Second), "job resync period -1s: want a positive duration"},
		{reconcilers.Positive("job resync period", time.Duration(0)), "job resync period 0s: want a positive duration"},
		{reconcilers.Positive("job burst pods", 0), "job burst pods 0: want a positive number"},
	} {
		if tt.err == nil || tt.err.Error() != tt.want {
			t.Errorf("%v, want %q", tt.err, tt.want)
		}
	}
	if err := errors.Join(reconcilers.Positive("a", time.Nanosecond), reconcilers.Positive("b", 1)); err != nil {
		t.Errorf("positive settings refused: %v", err)
	}
}
