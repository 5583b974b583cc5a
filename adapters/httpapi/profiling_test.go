package httpapi

import (
	"net/http"
	"testing"
)

// usersByToken authenticates a bearer token to its user.
type usersByToken map[string]User

func (u usersByToken) Authenticate(r *http.Request) (User, error) {
	if user, ok := u[r.Header.Get("Authorization")]; ok {
		return user, nil
	}
	return User{}, unauthorized("unknown token")
}

func TestProfilesOnlyWhenAskedAndOnlyForAdministrators(t *testing.T) {
	users := usersByToken{
		"Bearer admin":  {Name: "alice", Groups: []string{GroupAdmins}},
		"Bearer viewer": {Name: "victor", Groups: []string{GroupViewers}},
	}
	off := newTestAPI(t, users).serve(t)
	mustSend(t, nil, off.URL, http.StatusNotFound, req{method: http.MethodGet, path: "/debug/pprof/", token: "admin"})

	api := newTestAPI(t, users)
	api.profilingRoutes()
	on := api.serve(t)
	tests := []struct {
		name, token string
		want        int
	}{
		{"administrator", "admin", http.StatusOK},
		{"viewer", "viewer", http.StatusForbidden},
		{"no token", "", http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mustSend(t, nil, on.URL, tt.want, req{method: http.MethodGet, path: "/debug/pprof/", token: tt.token})
		})
	}
}
