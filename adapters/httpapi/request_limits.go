package httpapi

import (
	"net/url"

	"github.com/google/uuid"
)

// maxRequestIDLength bounds the X-Request-Id a client may send, as
// kube-apiserver bounds a client's Audit-ID (WithValidatingAuditInit):
// the id is echoed and stored as the correlation id of every event the
// request causes, some kept for ever.
const maxRequestIDLength = 256

// requestID is the request's correlation id: the client's X-Request-Id
// when it sends a usable one, a fresh UUID when it sends none. Usable is
// kube-apiserver's rule for an Audit-ID: at most 256 characters, letters
// and digits, with hyphens between them (a UUID, a W3C trace id). Any
// other is refused with 400 rather than cut: a cut id no longer matches
// what the client logged.
func requestID(header string) (string, error) {
	if header == "" {
		return uuid.NewString(), nil
	}
	if len(header) > maxRequestIDLength || !hyphenatedAlphanumeric(header) {
		return "", badRequest("X-Request-Id is invalid: it must be at most %d characters of letters and digits, separated by hyphens ('-')", maxRequestIDLength)
	}
	return header, nil
}

// hyphenatedAlphanumeric says whether s is ASCII letters and digits with
// hyphens only between them.
func hyphenatedAlphanumeric(s string) bool {
	alnum := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	if len(s) < 2 || !alnum(s[0]) || !alnum(s[len(s)-1]) {
		return false
	}
	for i := range len(s) {
		if !alnum(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

// checkQuery refuses a query string that does not parse. Go's URL parser
// gives up on a malformed query, or one of more than 10,000 parameters,
// with an empty map, and r.URL.Query() drops that error: without this
// check `?dryRun=All` and 10,001 more parameters would write the object
// and a filtered list come back unfiltered.
func checkQuery(raw string) error {
	if _, err := url.ParseQuery(raw); err != nil {
		return badRequest("the query string does not parse: %v", err)
	}
	return nil
}
