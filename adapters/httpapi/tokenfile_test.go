package httpapi

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseTokenFile(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		want    map[string]User
		wantErr []string
	}{
		{
			name: "kube-apiserver's format, groups quoted, blank lines skipped",
			file: "adm1n,alice,1001,\"herd:admins,ops\"\n\n" +
				"v1ew,bob,1002,herd:viewers\n" +
				"p1co,system:node:pico-01,pico-01,system:nodes\n" +
				"n0role,carol,1003\n",
			want: map[string]User{
				"adm1n":  {Name: "alice", UID: "1001", Groups: []string{"herd:admins", "ops"}},
				"v1ew":   {Name: "bob", UID: "1002", Groups: []string{"herd:viewers"}},
				"p1co":   {Name: "system:node:pico-01", UID: "pico-01", Groups: []string{"system:nodes"}},
				"n0role": {Name: "carol", UID: "1003"},
			},
		},
		{
			name:    "every bad line is named",
			file:    "tok,alice\n,bob,1\ntok2,,2\nx,carol,3\nx,dave,4\n",
			wantErr: []string{"line 1: want token,user,uid", "line 2: the token is empty", "line 3: the user name is empty", "line 5: the token of user \"dave\" is listed before"},
		},
		{name: "an empty file", file: "\n", wantErr: []string{"lists no tokens"}},
		{name: "broken CSV", file: "a,\"b,c\n", wantErr: []string{"quote"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tf, err := ParseTokenFile(strings.NewReader(tt.file))
			if len(tt.wantErr) > 0 {
				if err == nil {
					t.Fatal("no error")
				}
				for _, w := range tt.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, tf.users); diff != "" {
				t.Errorf("users (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUserRoles(t *testing.T) {
	tests := []struct {
		user          User
		admin, viewer bool
		node          string
	}{
		{User{Name: "alice", Groups: []string{GroupAdmins}}, true, true, ""},
		{User{Name: "root", Groups: []string{GroupMasters}}, true, true, ""},
		{User{Name: "bob", Groups: []string{GroupViewers}}, false, true, ""},
		{User{Name: "system:node:pico-01", Groups: []string{GroupNodes}}, false, false, "pico-01"},
		{User{Name: "system:node:pico-01"}, false, false, ""},
		{User{Name: "system:node:", Groups: []string{GroupNodes}}, false, false, ""},
		{Anonymous, true, true, ""},
	}
	for _, tt := range tests {
		node, _ := tt.user.NodeName()
		if tt.user.IsAdmin() != tt.admin || tt.user.IsViewer() != tt.viewer || node != tt.node {
			t.Errorf("%+v: admin %v viewer %v node %q; want %v %v %q", tt.user, tt.user.IsAdmin(), tt.user.IsViewer(), node, tt.admin, tt.viewer, tt.node)
		}
	}
}
