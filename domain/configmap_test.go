package domain

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// cmContent is what a ConfigMap's writers set, in one struct: what a
// create starts with and an update replaces.
type cmContent struct {
	Labels      map[string]string
	Annotations map[string]string
	Data        map[string]string
	BinaryData  map[string][]byte
	Immutable   bool
	Owners      []OwnerReference
}

// split is the content as the object model holds it.
func (c cmContent) split() (ObjectMeta, ConfigMapSpec) {
	return ObjectMeta{Labels: c.Labels, Annotations: c.Annotations, Owners: c.Owners},
		ConfigMapSpec{Data: c.Data, BinaryData: c.BinaryData, Immutable: c.Immutable}
}

// create is the create of namespace/name with uid and content c.
func (c cmContent) create(namespace, name, uid string) CreateConfigMap {
	meta, spec := c.split()
	meta.Namespace, meta.Name, meta.UID = namespace, name, uid
	return CreateConfigMap{Meta: meta, Spec: spec}
}

// update is the update to content c.
func (c cmContent) update() UpdateConfigMap {
	meta, spec := c.split()
	return UpdateConfigMap{Meta: meta, Spec: spec}
}

// sampleContent is a ConfigMap's content with a bit of everything.
func sampleContent() cmContent {
	return cmContent{
		Labels:      map[string]string{"app": "pico"},
		Annotations: map[string]string{"herd.dev/readable-by-nodes": "pico-*"},
		Data:        map[string]string{"interval": "10", "led": "on"},
		BinaryData:  map[string][]byte{"blob.bin": {0, 1, 2}},
	}
}

// created is a ConfigMap created at t0 with sampleContent, at log position 3.
func created() ConfigMap {
	cm := EvolveConfigMap(ConfigMap{}, cmCreated("default", "pico-config", "u1", sampleContent(), t0))
	cm.ResourceVersion = 3
	return cm
}

func withData(c cmContent, k, v string) cmContent {
	c = deepCopy(c)
	c.Data[k] = v
	return c
}

// cmCreated is the ConfigMapCreated of a create with content c.
func cmCreated(ns, name, uid string, c cmContent, at time.Time) ConfigMapCreated {
	meta, spec := c.split()
	return ConfigMapCreated{Namespace: ns, Name: name, UID: uid, Labels: meta.Labels, Annotations: meta.Annotations,
		Owners: meta.Owners, Spec: spec, At: at}
}

// cmUpdated is the ConfigMapUpdated of an update to content c.
func cmUpdated(c cmContent, changed []string, at time.Time) ConfigMapUpdated {
	meta, spec := c.split()
	return ConfigMapUpdated{Labels: meta.Labels, Annotations: meta.Annotations, Owners: meta.Owners, Spec: spec,
		Changed: changed, At: at}
}

func TestDecideConfigMap(t *testing.T) {
	now := at(30)
	immutable := created()
	immutable.Spec.Immutable = true
	deleted := EvolveConfigMap(created(), ConfigMapDeleted{At: at(5)})

	tests := []struct {
		name    string
		cm      ConfigMap
		cmd     ConfigMapCommand
		want    []Event
		wantErr error
	}{
		{
			name: "create records the whole content",
			cmd:  sampleContent().create("default", "pico-config", "u1"),
			want: []Event{cmCreated("default", "pico-config", "u1", sampleContent(), now)},
		},
		{
			name:    "create of a taken name",
			cm:      created(),
			cmd:     CreateConfigMap{Meta: ObjectMeta{Namespace: "default", Name: "pico-config"}},
			wantErr: ErrAlreadyExists,
		},
		{
			name: "create after delete starts afresh",
			cm:   deleted,
			cmd:  CreateConfigMap{Meta: ObjectMeta{Namespace: "default", Name: "pico-config", UID: "u2"}},
			want: []Event{ConfigMapCreated{Namespace: "default", Name: "pico-config", UID: "u2", At: now}},
		},
		{
			name: "update names what changed",
			cm:   created(),
			cmd:  Precondition[ConfigMapCommand]{ResourceVersion: 3, Command: withData(sampleContent(), "interval", "5").update()},
			want: []Event{cmUpdated(withData(sampleContent(), "interval", "5"), []string{"data.interval"}, now)},
		},
		{
			name: "update without a resourceVersion applies to whatever is there",
			cm:   created(),
			cmd:  cmContent{Data: map[string]string{"led": "off"}}.update(),
			want: []Event{cmUpdated(cmContent{Data: map[string]string{"led": "off"}},
				[]string{"binaryData.blob.bin", "data.interval", "data.led", "metadata.annotations.herd.dev/readable-by-nodes", "metadata.labels.app"}, now)},
		},
		{
			name: "an update that changes nothing records nothing",
			cm:   created(),
			cmd:  Precondition[ConfigMapCommand]{ResourceVersion: 3, Command: sampleContent().update()},
		},
		{
			name:    "a stale resourceVersion is a conflict",
			cm:      created(),
			cmd:     Precondition[ConfigMapCommand]{ResourceVersion: 2, Command: withData(sampleContent(), "interval", "5").update()},
			wantErr: ErrConflict,
		},
		{
			name:    "update of a ConfigMap that does not exist",
			cmd:     sampleContent().update(),
			wantErr: ErrNotFound,
		},
		{
			name:    "update of a deleted ConfigMap",
			cm:      deleted,
			cmd:     sampleContent().update(),
			wantErr: ErrNotFound,
		},
		{
			name:    "an immutable ConfigMap keeps its data",
			cm:      immutable,
			cmd:     cmContent{Data: map[string]string{"x": "y"}, Immutable: true}.update(),
			wantErr: ErrInvalid,
		},
		{
			name: "an immutable ConfigMap may change its labels",
			cm:   immutable,
			cmd: func() cmContent {
				c := sampleContent()
				c.Immutable, c.Labels = true, map[string]string{"app": "pico2"}
				return c
			}().update(),
			want: []Event{ConfigMapMetadataChanged{Labels: map[string]string{"app": "pico2"},
				Annotations: sampleContent().Annotations, Changed: []string{"metadata.labels.app"}, At: now}},
		},
		{
			name: "delete",
			cm:   created(),
			cmd:  DeleteConfigMap{},
			want: []Event{ConfigMapDeleted{At: now}},
		},
		{
			name:    "delete with a stale resourceVersion",
			cm:      created(),
			cmd:     Precondition[ConfigMapCommand]{ResourceVersion: 9, Command: DeleteConfigMap{}},
			wantErr: ErrConflict,
		},
		{
			name:    "delete twice",
			cm:      deleted,
			cmd:     DeleteConfigMap{},
			wantErr: ErrNotFound,
		},
		{
			name:    "nil command",
			cmd:     nil,
			wantErr: ErrInvalid,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := tt.cm.Clone()
			got, err := DecideConfigMap(tt.cm, tt.cmd, now)
			checkDecision(t, got, err, tt.want, tt.wantErr)
			if diff := cmp.Diff(before, tt.cm); diff != "" {
				t.Errorf("DecideConfigMap changed its input (-before +after):\n%s", diff)
			}
		})
	}
}

func TestConfigMapValidation(t *testing.T) {
	tests := []struct {
		name      string
		cmd       CreateConfigMap
		wantField []string
	}{
		{name: "namespace and name are required", cmd: CreateConfigMap{}, wantField: []string{"metadata.namespace", "metadata.name"}},
		{name: "namespace is a label", cmd: CreateConfigMap{Meta: ObjectMeta{Namespace: "a.b", Name: "x"}}, wantField: []string{"metadata.namespace"}},
		{name: "name is a subdomain", cmd: CreateConfigMap{Meta: ObjectMeta{Namespace: "default", Name: "Pico_Config"}}, wantField: []string{"metadata.name"}},
		{
			name: "data keys",
			cmd: cmContent{
				Data: map[string]string{"ok-key_1.txt": "", "..x": "", "a b": ""},
			}.create("default", "x", ""),
			wantField: []string{"data[..x]", "data[a b]"},
		},
		{
			name: "a key in both data and binaryData",
			cmd: cmContent{
				Data: map[string]string{"k": "v"}, BinaryData: map[string][]byte{"k": {1}},
			}.create("default", "x", ""),
			wantField: []string{"data[k]"},
		},
		{
			name: "labels",
			cmd: cmContent{
				Labels: map[string]string{"bad key!": "v"},
			}.create("default", "x", ""),
			wantField: []string{"metadata.labels"},
		},
		{
			name: "more than 1 MiB of data",
			cmd: cmContent{
				Data: map[string]string{"big": strings.Repeat("x", 1<<20)},
			}.create("default", "x", ""),
			wantField: []string{"data"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := DecideConfigMap(ConfigMap{}, tt.cmd, t0)
			var inv *InvalidError
			if !errors.As(err, &inv) || evs != nil {
				t.Fatalf("got %v, %v; want an InvalidError and no events", evs, err)
			}
			var fields []string
			for _, f := range inv.Fields {
				fields = append(fields, f.Field)
			}
			if diff := cmp.Diff(tt.wantField, fields); diff != "" {
				t.Errorf("fields (-want +got):\n%s\n%v", diff, err)
			}
		})
	}
}

func TestEvolveConfigMap(t *testing.T) {
	cm := created()
	cm = EvolveConfigMap(cm, cmUpdated(cmContent{Data: map[string]string{"a": "b"}}, nil, at(1)))
	want := ConfigMap{ObjectMeta: ObjectMeta{Namespace: "default", Name: "pico-config", UID: "u1", CreatedAt: t0}, Version: 2, ResourceVersion: 3,
		Spec: ConfigMapSpec{Data: map[string]string{"a": "b"}}}
	if diff := cmp.Diff(want, cm); diff != "" {
		t.Errorf("after update (-want +got):\n%s", diff)
	}
	cm = EvolveConfigMap(cm, ConfigMapDeleted{At: at(2)})
	want = ConfigMap{ObjectMeta: ObjectMeta{Namespace: "default", Name: "pico-config"}, Deleted: true, Version: 3, ResourceVersion: 3}
	if diff := cmp.Diff(want, cm); diff != "" {
		t.Errorf("after delete (-want +got):\n%s", diff)
	}
	if cm.Exists() {
		t.Error("a deleted ConfigMap exists")
	}
}
