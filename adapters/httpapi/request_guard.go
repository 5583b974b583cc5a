package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
)

// crossOrigin refuses a browser's write sent from a page of another
// origin: net/http's CSRF protection, from the browser's Sec-Fetch-Site,
// or else its Origin compared with the Host. kubectl, client-go, herd's
// CLI, agents and devices send neither header and pass; the web view is
// of herd's own origin.
var crossOrigin = http.NewCrossOriginProtection()

// guard refuses, before anyone is authenticated, what no route may see:
// a path or query that is not text herd can store, a request to a herd
// without credentials under a host name that is not its own (DNS
// rebinding: a page of an attacker's name that resolves to loopback), and
// a browser's cross-origin write (a page elsewhere posting to herd).
func (s *Server) guard(r *http.Request, g gate) error {
	if err := checkRequestText(r); err != nil {
		return err
	}
	if mg, ok := g.(mainGate); ok && anonymous(mg.auth) && !s.answersHost(r.Host) {
		return forbidden("herd runs without credentials and answers only its own host names (localhost, loopback addresses%s), not %q: "+
			"a page of another name that resolves to this address must not reach it; give --token-auth-file to serve other names", s.hostNames(), r.Host)
	}
	if err := crossOrigin.Check(r); err != nil {
		return forbidden("cross-origin %s refused: a page of origin %q may not change herd at %q (%v)", r.Method, r.Header.Get("Origin"), r.Host, err)
	}
	return nil
}

// anonymous says whether auth lets everyone in: herd without a token file.
func anonymous(auth Authenticator) bool {
	_, ok := auth.(AllowAnonymous)
	return ok || auth == nil
}

// answersHost says whether a herd without credentials answers a request
// for host (the Host header, any port): localhost, a loopback address, or
// a name the configuration gives (the address herd listens on).
func (s *Server) answersHost(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	name = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(name, "]"), "["), "."))
	if name == "localhost" || slices.Contains(s.cfg.AnonymousHosts, name) {
		return true
	}
	addr, err := netip.ParseAddr(name)
	if err != nil {
		return false
	}
	// An address cannot be rebound: a page under it is served from it.
	return addr.IsLoopback() || s.cfg.AnonymousIPHosts
}

// hostNames lists the names the configuration adds, for the refusal.
func (s *Server) hostNames() string {
	var more []string
	more = append(more, s.cfg.AnonymousHosts...)
	if s.cfg.AnonymousIPHosts {
		more = append(more, "any IP address")
	}
	if len(more) == 0 {
		return ""
	}
	return ", " + strings.Join(more, ", ")
}

// hasBody says whether r carries a body: a length, or chunks.
func hasBody(r *http.Request) bool {
	return r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody
}

// checkBodyType refuses a write whose body is in a media type the route
// does not read, with kube-apiserver's 415 naming it and those it reads:
// a PATCH in a patch type, any other write in its kind's types (JSON only
// for herd's own group and for paths that are no resource). A request
// that names no type is JSON, as kube-apiserver reads it. Checked here,
// for every route at once, so that no handler reads a body a browser may
// send across origins without asking first (text/plain, a form).
func checkBodyType(r *http.Request, o offer, hasOffer bool) error {
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
	default:
		return nil
	}
	if !hasBody(r) {
		return nil
	}
	ct := bodyMediaType(r)
	if r.Method == http.MethodPatch {
		if slices.Contains(patchTypes, ct) {
			return nil
		}
		return unsupportedType(ct, patchTypes)
	}
	types := jsonOnly
	if hasOffer {
		types = o.types
	}
	names := mediaTypeNames(types)
	if slices.Contains(names, ct) {
		return nil
	}
	return unsupportedType(ct, names)
}
