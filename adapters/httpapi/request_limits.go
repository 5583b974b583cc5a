package httpapi

import (
	"net/url"

	"github.com/google/uuid"
)

// maxRequestIDLength bounds the X-Request-Id a client may send. The id is
// echoed and stored as the correlation id of every event the request
// causes, some kept for ever, so it is held to what a trace or request
// id needs: a UUID is 36 characters, a W3C traceparent 55.
const maxRequestIDLength = 128

// requestID is the request's correlation id: the client's X-Request-Id
// when it sends a usable one, a fresh UUID when it sends none. One that
// is too long or holds anything but printable ASCII (no spaces, no
// control characters) is refused with 400 rather than cut: a cut id no
// longer matches what the client logged, and a client with a sane id
// never meets the limit.
func requestID(header string) (string, error) {
	if header == "" {
		return uuid.NewString(), nil
	}
	if len(header) > maxRequestIDLength {
		return "", badRequest("X-Request-Id is %d bytes long; herd takes at most %d", len(header), maxRequestIDLength)
	}
	for i := range len(header) {
		if c := header[i]; c <= ' ' || c > '~' {
			return "", badRequest("X-Request-Id may hold only printable ASCII without spaces; byte %d is %q", i, c)
		}
	}
	return header, nil
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
