package domain

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func webSelector() *LabelSelector {
	return &LabelSelector{MatchLabels: map[string]string{"app": "web"}}
}

// samplePDBSpec is a budget of at most one web pod unavailable.
func samplePDBSpec() PodDisruptionBudgetSpec {
	return PodDisruptionBudgetSpec{MaxUnavailable: &IntOrPercent{Value: 1}, Selector: webSelector()}
}

func samplePodDisruptionBudgetEvents() []Event {
	spec := samplePDBSpec()
	return []Event{
		PodDisruptionBudgetCreated{Namespace: "default", Name: "web", UID: "pdb-uid", Spec: spec, At: at(1)},
		PodDisruptionBudgetChanged{Labels: map[string]string{"team": "a"}, Spec: spec, Generation: 2, At: at(2)},
		PodDisruptionBudgetMetadataChanged{Labels: map[string]string{"team": "b"}, Changed: []string{"metadata.labels.team"}, At: at(2)},
		PodDisruptionBudgetStatusRecorded{Status: PodDisruptionBudgetStatus{ObservedGeneration: 2, DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3}, At: at(3)},
		PodDisruptionGranted{Pod: "web-a", At: at(4)},
		PodDisruptionBudgetOwnersChanged{Owners: []OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "c", UID: "u"}}, At: at(5)},
		PodDisruptionBudgetDeleted{At: at(5)},
	}
}

// budgetWith is the web budget, created, with status st recorded.
func budgetWith(t *testing.T, spec PodDisruptionBudgetSpec, st PodDisruptionBudgetStatus) PodDisruptionBudget {
	t.Helper()
	b := PodDisruptionBudget{}
	for _, cmd := range []PodDisruptionBudgetCommand{
		CreatePodDisruptionBudget{Meta: ObjectMeta{Namespace: "default", Name: "web", UID: "pdb-uid"}, Spec: spec},
		RecordPodDisruptionBudgetStatus{Status: st},
	} {
		evs, err := DecidePodDisruptionBudget(b, cmd, at(1))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			b = EvolvePodDisruptionBudget(b, e)
		}
	}
	b.ResourceVersion = 7
	return b
}

func TestDecidePodDisruptionBudget(t *testing.T) {
	b := budgetWith(t, samplePDBSpec(), PodDisruptionBudgetStatus{ObservedGeneration: 1})
	both := samplePDBSpec()
	both.MinAvailable = &IntOrPercent{Value: 2}
	tooMuch := PodDisruptionBudgetSpec{MinAvailable: &IntOrPercent{Value: 150, Percent: true}, Selector: webSelector()}
	negative := PodDisruptionBudgetSpec{MaxUnavailable: &IntOrPercent{Value: -1}, Selector: webSelector()}
	badPolicy := samplePDBSpec()
	badPolicy.UnhealthyPodEvictionPolicy = "Sometimes"
	badSelector := PodDisruptionBudgetSpec{MaxUnavailable: &IntOrPercent{Value: 1},
		Selector: &LabelSelector{MatchExpressions: []SelectorRequirement{{Key: "app", Operator: "Near"}}}}
	everything := PodDisruptionBudgetSpec{MinAvailable: &IntOrPercent{Value: 50, Percent: true}, Selector: &LabelSelector{}}
	changed := samplePDBSpec()
	changed.MaxUnavailable = &IntOrPercent{Value: 25, Percent: true}
	tests := []struct {
		name    string
		b       PodDisruptionBudget
		cmd     PodDisruptionBudgetCommand
		want    []Event
		wantErr error
	}{
		{"create twice", b, CreatePodDisruptionBudget{Meta: ObjectMeta{Namespace: "default", Name: "web"}, Spec: samplePDBSpec()}, nil, ErrAlreadyExists},
		{"both minAvailable and maxUnavailable", PodDisruptionBudget{}, CreatePodDisruptionBudget{Meta: ObjectMeta{Namespace: "default", Name: "web"}, Spec: both}, nil, ErrInvalid},
		{"more than 100%", PodDisruptionBudget{}, CreatePodDisruptionBudget{Meta: ObjectMeta{Namespace: "default", Name: "web"}, Spec: tooMuch}, nil, ErrInvalid},
		{"a negative number", PodDisruptionBudget{}, CreatePodDisruptionBudget{Meta: ObjectMeta{Namespace: "default", Name: "web"}, Spec: negative}, nil, ErrInvalid},
		{"an unknown policy", PodDisruptionBudget{}, CreatePodDisruptionBudget{Meta: ObjectMeta{Namespace: "default", Name: "web"}, Spec: badPolicy}, nil, ErrInvalid},
		{"an unknown operator", PodDisruptionBudget{}, CreatePodDisruptionBudget{Meta: ObjectMeta{Namespace: "default", Name: "web"}, Spec: badSelector}, nil, ErrInvalid},
		{"an empty selector selects every pod", PodDisruptionBudget{}, CreatePodDisruptionBudget{Meta: ObjectMeta{Namespace: "default", Name: "all", UID: "u"}, Spec: everything},
			[]Event{PodDisruptionBudgetCreated{Namespace: "default", Name: "all", UID: "u", Spec: everything, At: at(9)}}, nil},
		{"a new spec is a new generation", b, UpdatePodDisruptionBudget{Spec: changed},
			[]Event{PodDisruptionBudgetChanged{Spec: changed, Generation: 2, At: at(9)}}, nil},
		{"the same spec changes nothing", b, UpdatePodDisruptionBudget{Spec: samplePDBSpec()}, nil, nil},
		{"an update on a stale resourceVersion", b, Precondition[PodDisruptionBudgetCommand]{ResourceVersion: 3, Command: UpdatePodDisruptionBudget{Spec: changed}}, nil, ErrConflict},
		{"an update of a budget that is not there", PodDisruptionBudget{}, UpdatePodDisruptionBudget{Spec: changed}, nil, ErrNotFound},
		{"the same status records nothing", b, RecordPodDisruptionBudgetStatus{Status: b.Status}, nil, nil},
		{"delete", b, DeletePodDisruptionBudget{}, []Event{PodDisruptionBudgetDeleted{At: at(9)}}, nil},
		{"delete on a stale resourceVersion", b, Precondition[PodDisruptionBudgetCommand]{ResourceVersion: 3, Command: DeletePodDisruptionBudget{}}, nil, ErrConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecidePodDisruptionBudget(tt.b, tt.cmd, at(9))
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestBothBoundsNamed: a budget with both bounds is refused in
// kube-apiserver's words, at spec.
func TestBothBoundsNamed(t *testing.T) {
	both := samplePDBSpec()
	both.MinAvailable = &IntOrPercent{Value: 2}
	_, err := DecidePodDisruptionBudget(PodDisruptionBudget{}, CreatePodDisruptionBudget{Meta: ObjectMeta{Namespace: "default", Name: "web"}, Spec: both}, at(1))
	var inv *InvalidError
	if !errors.As(err, &inv) || len(inv.Fields) != 1 || inv.Fields[0].Field != "spec" || inv.Fields[0].Reason != "minAvailable and maxUnavailable cannot be both set" {
		t.Errorf("refusal = %v", err)
	}
}

func TestIntOrPercentOf(t *testing.T) {
	for _, tt := range []struct {
		v     IntOrPercent
		total int32
		want  int32
	}{
		{IntOrPercent{Value: 2}, 10, 2},
		{IntOrPercent{Value: 50, Percent: true}, 3, 2}, // rounded up, as Kubernetes does
		{IntOrPercent{Value: 10, Percent: true}, 10, 1},
		{IntOrPercent{Value: 0, Percent: true}, 10, 0},
		{IntOrPercent{Value: 100, Percent: true}, 7, 7},
	} {
		if got := tt.v.Of(tt.total); got != tt.want {
			t.Errorf("%s of %d = %d, want %d", tt.v, tt.total, got, tt.want)
		}
	}
}

// readyPod is a running web pod, ready or not.
func readyPod(name string, ready bool) Pod {
	st := ConditionFalse
	if ready {
		st = ConditionTrue
	}
	return Pod{Namespace: "default", Name: name, Labels: map[string]string{"app": "web"}, Version: 3,
		Status: PodStatus{Phase: PodRunning, Conditions: []PodCondition{{Type: PodConditionReady, Status: st}}}}
}

func TestEvictionBudget(t *testing.T) {
	web := budgetWith(t, samplePDBSpec(), PodDisruptionBudgetStatus{ObservedGeneration: 1})
	other := web
	other.Name, other.Spec.Selector = "all", &LabelSelector{}
	none := web
	none.Name, none.Spec.Selector = "none", nil
	elsewhere := web
	elsewhere.Namespace = "shop"
	pending := readyPod("web-a", false)
	pending.Status.Phase = PodPending
	leaving := readyPod("web-a", true)
	leaving.Deletion = &PodDeletion{}
	tests := []struct {
		name    string
		pod     Pod
		budgets []PodDisruptionBudget
		want    Key
		wantErr error
	}{
		{"a ready pod its budget covers", readyPod("web-a", true), []PodDisruptionBudget{web, none, elsewhere}, web.Key(), nil},
		{"a pod no budget covers", readyPod("web-a", true), []PodDisruptionBudget{none, elsewhere}, Key{}, nil},
		{"a pending pod is no disruption", pending, []PodDisruptionBudget{web}, Key{}, nil},
		{"a pod being deleted is no disruption", leaving, []PodDisruptionBudget{web}, Key{}, nil},
		{"two budgets", readyPod("web-a", true), []PodDisruptionBudget{web, other}, Key{}, ErrMultipleBudgets},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			key, cmd, err := Eviction{}.Budget(tt.pod, tt.budgets)
			if !errors.Is(err, tt.wantErr) || key != tt.want || (key == Key{}) != (cmd == nil) {
				t.Errorf("Budget = %v, %v, %v; want %v, %v", key, cmd, err, tt.want, tt.wantErr)
			}
		})
	}
}

func TestGrantPodDisruption(t *testing.T) {
	healthy := PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3}
	spent := healthy
	spent.DisruptionsAllowed, spent.CurrentHealthy = 0, 2
	unhealthy := spent
	unhealthy.CurrentHealthy = 1
	always := samplePDBSpec()
	always.UnhealthyPodEvictionPolicy = AlwaysAllow
	stale := budgetWith(t, samplePDBSpec(), healthy)
	stale.Generation = 2
	tests := []struct {
		name      string
		b         PodDisruptionBudget
		ready     bool
		want      []Event
		refused   bool
		forbidden bool
	}{
		{"a disruption allowed is spent", budgetWith(t, samplePDBSpec(), healthy), true, []Event{PodDisruptionGranted{Pod: "web-a", At: at(9)}}, false, false},
		{"none allowed", budgetWith(t, samplePDBSpec(), spent), true, nil, true, false},
		{"a spec not yet counted", stale, true, nil, true, false},
		// policy/v1 refuses to write a negative allowance; a budget may
		// still hold one from before.
		{"a negative allowance", EvolvePodDisruptionBudget(budgetWith(t, samplePDBSpec(), healthy),
			PodDisruptionBudgetStatusRecorded{Status: PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: -1}}), true, nil, true, true},
		{"an unready pod while the budget is whole costs nothing", budgetWith(t, samplePDBSpec(), spent), false, nil, false, false},
		{"an unready pod of a budget short of healthy pods", budgetWith(t, samplePDBSpec(), unhealthy), false, nil, true, false},
		{"an unready pod under AlwaysAllow", budgetWith(t, always, unhealthy), false, nil, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecidePodDisruptionBudget(tt.b, GrantPodDisruption{Pod: "web-a", PodReady: tt.ready}, at(9))
			var refusal *EvictionRefusedError
			if errors.As(err, &refusal) != tt.refused || (tt.refused && refusal.Forbidden != tt.forbidden) || (!tt.refused && err != nil) {
				t.Fatalf("err = %v, want refused %v (forbidden %v)", err, tt.refused, tt.forbidden)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGrantSpendsTheLastDisruption: the grant that spends the last
// disruption records the pod and turns the condition False.
func TestGrantSpendsTheLastDisruption(t *testing.T) {
	st := PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 1, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3}.WithAllowedCondition(at(1))
	b := budgetWith(t, samplePDBSpec(), st)
	b = EvolvePodDisruptionBudget(b, PodDisruptionGranted{Pod: "web-a", At: at(9)})
	want := PodDisruptionBudgetStatus{ObservedGeneration: 1, DisruptionsAllowed: 0, CurrentHealthy: 3, DesiredHealthy: 2, ExpectedPods: 3,
		DisruptedPods: map[string]time.Time{"web-a": at(9)},
		Conditions: []BudgetCondition{{Type: DisruptionAllowedCondition, Status: ConditionFalse, Reason: InsufficientPodsReason,
			ObservedGeneration: 1, LastTransitionTime: at(9)}}}
	if diff := cmp.Diff(want, b.Status); diff != "" {
		t.Errorf("status after the grant (-want +got):\n%s", diff)
	}
	_, err := DecidePodDisruptionBudget(b, GrantPodDisruption{Pod: "web-b", PodReady: true}, at(10))
	if !errors.Is(err, ErrDisruptionBudget) || err.Error() != EvictionRefusedMessage+" The disruption budget web needs 2 healthy pods and has 3 currently" {
		t.Errorf("a second eviction: %v", err)
	}
}
