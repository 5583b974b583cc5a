package main

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"herd/cmd/herd/whatif"
	"herd/domain"
)

// TestBudgetFlag: --budget reads NAMESPACE/NAME:minAvailable=N[@TIME]
// and maxUnavailable, N a count or a percentage, and refuses anything
// else naming what is wrong.
func TestBudgetFlag(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in   string
		want whatif.BudgetChange
	}{
		{"default/web:minAvailable=2", whatif.BudgetChange{Namespace: "default", Name: "web", MinAvailable: domain.Ints(2)}},
		{"shop/cart:maxUnavailable=25%@2h", whatif.BudgetChange{Namespace: "shop", Name: "cart",
			MaxUnavailable: &domain.IntOrPercent{Value: 25, Percent: true}, At: now.Add(-2 * time.Hour)}},
		{"default/web:minAvailable=0@2026-11-28T09:00:00Z", whatif.BudgetChange{Namespace: "default", Name: "web", MinAvailable: domain.Ints(0),
			At: time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)}},
	} {
		got, err := budgetChange(c.in, now)
		if err != nil {
			t.Errorf("--budget %s: %v", c.in, err)
			continue
		}
		if d := cmp.Diff(c.want, got); d != "" {
			t.Errorf("--budget %s (-want +got):\n%s", c.in, d)
		}
	}
	for in, why := range map[string]string{
		"web:minAvailable=2":              "not NAMESPACE/NAME",
		"default/web":                     "no setting",
		"default/web:minAvailable=-1":     `"-1" is not a count`,
		"default/web:maxUnavailable=120%": `"120%" is not a count`,
		"default/web:replicas=2":          `"replicas" is neither`,
		"default/web:minAvailable=2@soon": "--budget",
		"default/web:minAvailable=2@":     "no time after @",
	} {
		if _, err := budgetChange(in, now); err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("--budget %s: err %v, want one saying %q", in, err, why)
		}
	}
}
