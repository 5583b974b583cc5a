package domain

import (
	"maps"
	"slices"
	"time"
)

// PodDisruptionBudget is the PodDisruptionBudget aggregate (policy/v1):
// how many of the pods its selector matches must stay healthy, or may be
// unavailable, while pods are evicted. The disruption reconciler keeps its
// status from the pods; an eviction spends one of the disruptions it
// allows. It is a kind on the object model (see Object): a change of its
// spec is a new generation, which Status.ObservedGeneration says the
// reconciler counted for.
type PodDisruptionBudget = Object[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]

// PodDisruptionBudgetSpec is what a budget asks for: at most one of
// MinAvailable and MaxUnavailable.
type PodDisruptionBudgetSpec struct {
	// MinAvailable is how many of the selected pods must stay healthy.
	MinAvailable *IntOrPercent `json:"minAvailable,omitempty"`
	// MaxUnavailable is how many of the pods their controllers keep may
	// be unhealthy.
	MaxUnavailable *IntOrPercent `json:"maxUnavailable,omitempty"`
	// Selector selects the budget's pods in its namespace: nil selects
	// none, an empty one every pod (policy/v1).
	Selector *LabelSelector `json:"selector,omitempty"`
	// UnhealthyPodEvictionPolicy says when a running pod that is not
	// ready may be evicted: IfHealthyBudget (the default, "") or
	// AlwaysAllow.
	UnhealthyPodEvictionPolicy string `json:"unhealthyPodEvictionPolicy,omitempty"`
}

// The unhealthy pod eviction policies, as policy/v1 names them.
const (
	// IfHealthyBudget lets a running pod that is not ready go only while
	// the budget has all the healthy pods it needs.
	IfHealthyBudget = "IfHealthyBudget"
	// AlwaysAllow lets a running pod that is not ready go at any time.
	AlwaysAllow = "AlwaysAllow"
)

// PodDisruptionBudgetStatus is what the reconciler last counted of the
// budget's pods, and the disruptions evictions spent since.
type PodDisruptionBudgetStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// DisruptedPods are the pods evictions were granted for, by name,
	// with when: not counted as healthy until they are seen going, or
	// for DisruptionTimeout.
	DisruptedPods      map[string]time.Time `json:"disruptedPods,omitempty"`
	DisruptionsAllowed int32                `json:"disruptionsAllowed"`
	CurrentHealthy     int32                `json:"currentHealthy"`
	DesiredHealthy     int32                `json:"desiredHealthy"`
	ExpectedPods       int32                `json:"expectedPods"`
	Conditions         []BudgetCondition    `json:"conditions,omitempty"`
}

// BudgetCondition is a condition of a budget, in metav1.Condition's
// shape: DisruptionAllowed.
type BudgetCondition struct {
	Type               string          `json:"type"`
	Status             ConditionStatus `json:"status"`
	ObservedGeneration int64           `json:"observedGeneration,omitempty"`
	LastTransitionTime time.Time       `json:"lastTransitionTime"`
	Reason             string          `json:"reason"`
	Message            string          `json:"message,omitempty"`
}

// The budget's condition and its reasons, as policy/v1 names them.
const (
	DisruptionAllowedCondition = "DisruptionAllowed"
	SufficientPodsReason       = "SufficientPods"
	InsufficientPodsReason     = "InsufficientPods"
	SyncFailedReason           = "SyncFailed"
)

// DisruptionTimeout is how long a pod an eviction was granted for stays
// out of the healthy count while it is not seen being deleted, as
// Kubernetes' disruption controller's DeletionTimeout.
const DisruptionTimeout = 2 * time.Minute

// BudgetSelects reports whether budget b covers pod p: same namespace,
// and a selector that matches its labels (a nil one matches nothing).
func BudgetSelects(b PodDisruptionBudget, p Pod) bool {
	return b.Exists() && b.Namespace == p.Namespace && b.Spec.Selector != nil && b.Spec.Selector.Matches(p.Labels)
}

// PodDisruptionBudgetStream is the name of the log stream of a budget.
func PodDisruptionBudgetStream(namespace, name string) string {
	return PodDisruptionBudgetAggregate.Stream(namespace + "/" + name)
}

// The budget's events, under the names they have always had in the log.
type (
	// PodDisruptionBudgetCreated records a budget's creation.
	PodDisruptionBudgetCreated = ObjectCreated[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]
	// PodDisruptionBudgetChanged records a new spec, with the labels and
	// annotations beside it; Generation is the budget's generation afterwards.
	PodDisruptionBudgetChanged = ObjectUpdated[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]
	// PodDisruptionBudgetMetadataChanged records new labels or annotations alone:
	// the spec and generation stay as they were.
	PodDisruptionBudgetMetadataChanged = ObjectMetadataChanged[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]
	// PodDisruptionBudgetStatusRecorded records what the reconciler (or
	// a client of the status subresource) counted of the budget's pods.
	PodDisruptionBudgetStatusRecorded = ObjectStatusRecorded[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]
	// PodDisruptionBudgetOwnersChanged records the budget's new owner
	// references.
	PodDisruptionBudgetOwnersChanged = ObjectOwnersChanged[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]
	// PodDisruptionBudgetDeleted records a budget's deletion.
	PodDisruptionBudgetDeleted = ObjectDeleted[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]
)

// PodDisruptionGranted records that the budget let pod Pod be evicted: one
// disruption fewer allowed, and the pod among the disrupted ones. It is
// the budget's own event, beside the object model's.
type PodDisruptionGranted struct {
	Pod string    `json:"pod"`
	At  time.Time `json:"at"`
}

// EventType implements Event.
func (PodDisruptionGranted) EventType() string { return "PodDisruptionGranted" }

// budgetKind is what is the budget's own on the object model.
var budgetKind = &ObjectKind[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]{
	Kind: "PodDisruptionBudget", Resource: budgetResource,
	Created: "PodDisruptionBudgetCreated", Updated: "PodDisruptionBudgetChanged", Deleted: "PodDisruptionBudgetDeleted",
	MetadataChanged: "PodDisruptionBudgetMetadataChanged",
	StatusRecorded:  "PodDisruptionBudgetStatusRecorded", OwnersChanged: "PodDisruptionBudgetOwnersChanged",
	UpdateReplacesOwners: true,
	Layout: ObjectLayout{
		State: []string{"namespace", "name", "uid,omitempty", "labels,omitempty", "annotations,omitempty", "owners,omitempty",
			"spec", "status", "generation", "createdAt", "deleted,omitempty", "version", "resourceVersion"},
		Created: workloadCreatedLayout, Updated: workloadUpdatedLayout,
		MetadataChanged: metadataChangedLayout,
	},
	Strategy: Strategy[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus]{
		Validate:                  func(_ ObjectMeta, s PodDisruptionBudgetSpec) []FieldError { return budgetSpecProblems(s) },
		SpecChangeBumpsGeneration: true,
		ValidateStatus: func(_ PodDisruptionBudgetSpec, _, s PodDisruptionBudgetStatus) []FieldError {
			errs := nonNegative(nil, "status.disruptionsAllowed", s.DisruptionsAllowed)
			errs = nonNegative(errs, "status.currentHealthy", s.CurrentHealthy)
			errs = nonNegative(errs, "status.desiredHealthy", s.DesiredHealthy)
			return nonNegative(errs, "status.expectedPods", s.ExpectedPods)
		},
	},
}

func (PodDisruptionBudgetSpec) objectKind() *ObjectKind[PodDisruptionBudgetSpec, PodDisruptionBudgetStatus] {
	return budgetKind
}

// PodDisruptionBudgetAggregate is the budget in the log: streams
// "poddisruptionbudget/NAMESPACE/NAME".
var PodDisruptionBudgetAggregate = defineNamespacedAggregate("poddisruptionbudget",
	eventOf[PodDisruptionBudgetCreated](1),
	eventOf[PodDisruptionBudgetChanged](1),
	eventOf[PodDisruptionBudgetMetadataChanged](1),
	eventOf[PodDisruptionBudgetStatusRecorded](1),
	eventOf[PodDisruptionGranted](1),
	eventOf[PodDisruptionBudgetDeleted](1),
	eventOf[PodDisruptionBudgetOwnersChanged](1),
)

// EvolvePodDisruptionBudget folds one event into the budget; it never
// mutates b.
func EvolvePodDisruptionBudget(b PodDisruptionBudget, e Event) PodDisruptionBudget {
	if out, ok := evolveObject(b, e); ok {
		return out
	}
	b.Version++
	if e, ok := e.(PodDisruptionGranted); ok {
		st := b.Status.clone()
		st.DisruptionsAllowed--
		if st.DisruptedPods == nil {
			st.DisruptedPods = map[string]time.Time{}
		}
		st.DisruptedPods[e.Pod] = e.At
		if st.DisruptionsAllowed == 0 {
			st = st.WithAllowedCondition(e.At)
		}
		b.Status = st
	}
	return b
}

// WithAllowedCondition is s with its DisruptionAllowed condition saying
// what DisruptionsAllowed does, as Kubernetes' UpdateDisruptionAllowedCondition:
// True (SufficientPods) while a disruption is allowed, False
// (InsufficientPods) otherwise. The transition time moves to now only
// when the condition's status changes.
func (s PodDisruptionBudgetStatus) WithAllowedCondition(now time.Time) PodDisruptionBudgetStatus {
	c := BudgetCondition{Type: DisruptionAllowedCondition, Status: ConditionFalse, Reason: InsufficientPodsReason, ObservedGeneration: s.ObservedGeneration}
	if s.DisruptionsAllowed > 0 {
		c.Status, c.Reason = ConditionTrue, SufficientPodsReason
	}
	return s.withCondition(c, now)
}

// withCondition sets c among s's conditions, keeping the transition time
// of one of the same type and status.
func (s PodDisruptionBudgetStatus) withCondition(c BudgetCondition, now time.Time) PodDisruptionBudgetStatus {
	s.Conditions = slices.Clone(s.Conditions)
	c.LastTransitionTime = now
	for i, old := range s.Conditions {
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		s.Conditions[i] = c
		return s
	}
	s.Conditions = append(s.Conditions, c)
	return s
}

// FailSafe is s after the reconciler could not count the budget's pods
// (err), as Kubernetes' failSafe: no disruption allowed, and the
// condition False with reason SyncFailed and err's message.
func (s PodDisruptionBudgetStatus) FailSafe(err error, now time.Time) PodDisruptionBudgetStatus {
	s = s.clone()
	s.DisruptionsAllowed = 0
	return s.withCondition(BudgetCondition{
		Type: DisruptionAllowedCondition, Status: ConditionFalse, Reason: SyncFailedReason,
		Message: err.Error(), ObservedGeneration: s.ObservedGeneration,
	}, now)
}

// Equal reports whether two statuses say the same.
func (s PodDisruptionBudgetStatus) Equal(o PodDisruptionBudgetStatus) bool {
	return s.ObservedGeneration == o.ObservedGeneration && s.DisruptionsAllowed == o.DisruptionsAllowed &&
		s.CurrentHealthy == o.CurrentHealthy && s.DesiredHealthy == o.DesiredHealthy && s.ExpectedPods == o.ExpectedPods &&
		maps.EqualFunc(s.DisruptedPods, o.DisruptedPods, time.Time.Equal) &&
		slices.EqualFunc(s.Conditions, o.Conditions, func(a, b BudgetCondition) bool {
			return a.Type == b.Type && a.Status == b.Status && a.ObservedGeneration == b.ObservedGeneration &&
				a.LastTransitionTime.Equal(b.LastTransitionTime) && a.Reason == b.Reason && a.Message == b.Message
		})
}

func (s PodDisruptionBudgetStatus) clone() PodDisruptionBudgetStatus {
	c := s
	c.DisruptedPods = maps.Clone(s.DisruptedPods)
	c.Conditions = slices.Clone(s.Conditions)
	return c
}
