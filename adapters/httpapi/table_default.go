package httpapi

import (
	"encoding/json"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// defaultTable is obj — one object or a list — as the Table of a kind that
// prints nothing of its own: its name and when it was created, as
// kube-apiserver's default table convertor prints every resource without
// a printer. include is the request's includeObject.
func defaultTable(obj runtime.Object, include string, now time.Time) (*metav1.Table, error) {
	t := &metav1.Table{
		TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ColumnDefinitions: []metav1.TableColumnDefinition{
			{Name: "Name", Type: "string", Format: "name", Description: "Name of the object"},
			{Name: "Created At", Type: "date", Description: "When the object was created"},
		},
	}
	items := []runtime.Object{obj}
	if meta.IsListType(obj) {
		var err error
		if items, err = meta.ExtractList(obj); err != nil {
			return nil, fmt.Errorf("a table of %T: %w", obj, err)
		}
		if l, err := meta.ListAccessor(obj); err == nil {
			t.ResourceVersion, t.Continue = l.GetResourceVersion(), l.GetContinue()
		}
	} else if m, err := meta.Accessor(obj); err == nil {
		t.ResourceVersion = m.GetResourceVersion()
	}
	t.Rows = make([]metav1.TableRow, 0, len(items))
	for _, item := range items {
		m, err := meta.Accessor(item)
		if err != nil {
			return nil, fmt.Errorf("a table of %T: %w", item, err)
		}
		created := m.GetCreationTimestamp().Time
		if created.IsZero() {
			created = now
		}
		row := metav1.TableRow{Cells: []any{m.GetName(), created.UTC().Format(time.RFC3339)}}
		row.Object = includedObject(include, item, metaOf(m))
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// includedObject is what a Table's row carries of obj: its metadata, the
// whole object when the client asked with includeObject=Object, nothing
// with None.
func includedObject(include string, obj any, m metav1.ObjectMeta) runtime.RawExtension {
	var v any = metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/v1"},
		ObjectMeta: m,
	}
	switch include {
	case "Object":
		v = obj
	case "None":
		return runtime.RawExtension{}
	}
	raw, _ := json.Marshal(v)
	return runtime.RawExtension{Raw: raw}
}
