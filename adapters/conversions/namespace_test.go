package conversions

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"herd/domain"
)

func TestNamespaceToAPI(t *testing.T) {
	created := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	ns := domain.Namespace{ObjectMeta: domain.ObjectMeta{Name: "shop", UID: "u1", Labels: map[string]string{"team": "shop"}, CreatedAt: created},
		Version: 1, ResourceVersion: 42}
	got := NamespaceToAPI(ns)
	if got.Status.Phase != corev1.NamespaceActive || got.Labels[corev1.LabelMetadataName] != "shop" || got.Labels["team"] != "shop" ||
		got.ResourceVersion != "42" || got.DeletionTimestamp != nil || !got.CreationTimestamp.Equal(&metav1.Time{Time: created}) {
		t.Errorf("active namespace: %+v", got)
	}
	terminating := created.Add(time.Hour)
	ns.DeletionRequestedAt = &terminating
	got = NamespaceToAPI(ns)
	if got.Status.Phase != corev1.NamespaceTerminating || got.DeletionTimestamp == nil || !got.DeletionTimestamp.Time.Equal(terminating) {
		t.Errorf("terminating namespace: %+v", got)
	}
	cmd := CreateNamespaceFromAPI(got, "u2")
	if cmd.Meta.Name != "shop" || cmd.Meta.UID != "u2" || len(cmd.Meta.Labels) != 1 || cmd.Meta.Labels["team"] != "shop" {
		t.Errorf("create from API: %+v", cmd)
	}
	up := UpdateNamespaceFromAPI(got)
	if up.Meta.Name != "shop" || up.Meta.UID != "u1" || len(up.Meta.Labels) != 1 || up.Meta.Labels["team"] != "shop" {
		t.Errorf("update from API: %+v", up)
	}
}
