package httpapi

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
)

// TokenFile authenticates bearer tokens listed in a file of the format of
// kube-apiserver's --token-auth-file: one CSV line per token,
//
//	token,user,uid,"group1,group2"
//
// with the groups column optional. Blank lines are skipped. A TokenFile
// holds the tokens of one read of the file; ReloadingTokenFile reads it
// again when it changes.
type TokenFile struct {
	users map[string]User
}

var _ Authenticator = (*TokenFile)(nil)

// LoadTokenFile reads a token file, naming the line of every problem.
func LoadTokenFile(path string) (*TokenFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--token-auth-file: %w", err)
	}
	defer func() { _ = f.Close() }() // read only: the parse error is the one that matters
	tf, err := ParseTokenFile(f)
	if err != nil {
		return nil, fmt.Errorf("--token-auth-file %s: %w", path, err)
	}
	return tf, nil
}

// ParseTokenFile reads the token file format from r.
func ParseTokenFile(r io.Reader) (*TokenFile, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	tf := &TokenFile{users: map[string]User{}}
	var errs []error
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) < 3 {
			errs = append(errs, fmt.Errorf("line %d: want token,user,uid[,\"group1,group2\"], got %d columns", line, len(rec)))
			continue
		}
		token, name := strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1])
		switch {
		case token == "":
			errs = append(errs, fmt.Errorf("line %d: the token is empty", line))
			continue
		case name == "":
			errs = append(errs, fmt.Errorf("line %d: the user name is empty", line))
			continue
		}
		if _, dup := tf.users[token]; dup {
			errs = append(errs, fmt.Errorf("line %d: the token of user %q is listed before", line, name))
			continue
		}
		u := User{Name: name, UID: strings.TrimSpace(rec[2])}
		if len(rec) > 3 {
			for g := range strings.SplitSeq(rec[3], ",") {
				if g = strings.TrimSpace(g); g != "" {
					u.Groups = append(u.Groups, g)
				}
			}
		}
		tf.users[token] = u
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if len(tf.users) == 0 {
		return nil, errors.New("the file lists no tokens")
	}
	return tf, nil
}

// Len is the number of tokens in the file.
func (tf *TokenFile) Len() int { return len(tf.users) }

// Authenticate implements Authenticator: the Authorization header must
// carry "Bearer TOKEN" with a token from the file.
func (tf *TokenFile) Authenticate(r *http.Request) (User, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return User{}, unauthorized("Unauthorized: this herd requires a bearer token (Authorization: Bearer TOKEN)")
	}
	scheme, token, ok := strings.Cut(h, " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return User{}, unauthorized("Unauthorized: the Authorization header must be \"Bearer TOKEN\"")
	}
	u, ok := tf.users[token]
	if !ok {
		return User{}, unauthorized("Unauthorized: the bearer token is not valid")
	}
	return u, nil
}

// Admin is the token of an administrator (group herd:admins) in the file,
// for a kubeconfig that herd writes for its operator: the first such user
// by name, so that the choice does not change from one start to the next.
func (tf *TokenFile) Admin() (token string, u User, ok bool) {
	for t, user := range tf.users {
		if slices.Contains(user.Groups, GroupAdmins) && (!ok || user.Name < u.Name) {
			token, u, ok = t, user, true
		}
	}
	return token, u, ok
}
