package httpapi

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"

	"herd/domain"
	"herd/projections/watch"
)

func (a *watchAPI) configMap(t *testing.T, namespace, name string, cmd domain.ConfigMapCommand) domain.ConfigMap {
	t.Helper()
	c, err := a.w.ConfigMapCommands().Execute(context.Background(), domain.Key{Namespace: namespace, Name: name}, cmd)
	if err != nil {
		t.Fatalf("%T on %s/%s: %v", cmd, namespace, name, err)
	}
	return c
}

// TestConfigMapsAreWatchedWithTheirDataAsItWas watches one namespace's
// ConfigMaps from a past resourceVersion: each event carries the data as
// the change left it, and the deletion the last data.
func TestConfigMapsAreWatchedWithTheirDataAsItWas(t *testing.T) {
	a := newWatchAPI(t, watch.Config{})
	a.configMap(t, "default", "before", domain.CreateConfigMap{Meta: domain.ObjectMeta{Namespace: "default", Name: "before", UID: "u0"}})
	from := a.head(t)
	data := func(v string) domain.ConfigMapSpec {
		return domain.ConfigMapSpec{Data: map[string]string{"interval": v}}
	}
	created := a.configMap(t, "default", "pico-config", domain.CreateConfigMap{Meta: domain.ObjectMeta{Namespace: "default", Name: "pico-config", UID: "u1"}, Spec: data("5")})
	a.configMap(t, "other", "pico-config", domain.CreateConfigMap{Meta: domain.ObjectMeta{Namespace: "other", Name: "pico-config", UID: "u2"}, Spec: data("1")})
	updated := a.configMap(t, "default", "pico-config", domain.UpdateConfigMap{Spec: data("10")})
	deleted := a.configMap(t, "default", "pico-config", domain.DeleteConfigMap{})

	stream := a.open(t, "/api/v1/namespaces/default/configmaps?watch=true&resourceVersion="+strconv.FormatInt(from, 10), nil)
	type seen struct {
		Type, Interval string
		RV             string
	}
	rv := func(c domain.ConfigMap) string { return strconv.FormatInt(c.ResourceVersion, 10) }
	want := []seen{{"ADDED", "5", rv(created)}, {"MODIFIED", "10", rv(updated)}, {"DELETED", "10", rv(deleted)}}
	var got []seen
	for range want {
		f := stream.frame(t)
		var cm corev1.ConfigMap
		if err := json.Unmarshal(f.Object, &cm); err != nil {
			t.Fatal(err)
		}
		got = append(got, seen{f.Type, cm.Data["interval"], cm.ResourceVersion})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}

	// Pages of one, across namespaces.
	var keys []string
	for cont, pages := "", 0; pages == 0 || cont != ""; pages++ {
		var list corev1.ConfigMapList
		if err := json.Unmarshal(mustGet(t, a, "/api/v1/configmaps?limit=1&continue="+cont), &list); err != nil || list.Kind != "ConfigMapList" {
			t.Fatalf("not a ConfigMapList: %v", err)
		}
		for _, c := range list.Items {
			keys = append(keys, c.Namespace+"/"+c.Name)
		}
		if cont = list.Continue; pages > 5 {
			t.Fatal("the pages do not end")
		}
	}
	if want := []string{"default/before", "other/pico-config"}; !cmp.Equal(want, keys) {
		t.Errorf("ConfigMaps page by page: %v, want %v", keys, want)
	}
}
