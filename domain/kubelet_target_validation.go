package domain

import (
	"crypto/x509"
	"encoding/pem"
	"net/url"
	"path"
)

// Field paths in a rejected kubelet target follow herd's API object:
// metadata.name, spec.url, spec.caFile, spec.caData, spec.clientCertFile,
// spec.clientKeyFile, spec.bearerTokenFile, spec.insecureSkipVerify.

// ValidateKubeletTarget collects every problem with t into one
// *InvalidError, or returns nil. It checks the target's shape only: that
// the files exist and hold what they should is for whoever can read them.
func ValidateKubeletTarget(t KubeletTarget) error {
	var errs []FieldError
	add := func(field, value, reason string) {
		errs = append(errs, FieldError{Field: field, Value: value, Reason: reason})
	}
	switch t.Name {
	case "":
		add("metadata.name", "", "required")
	default:
		for _, msg := range dns1123SubdomainProblems(t.Name) {
			add("metadata.name", t.Name, msg)
		}
	}
	scheme := "" // of a URL that is otherwise fine
	switch u, err := url.Parse(t.URL); {
	case t.URL == "":
		add("spec.url", "", "required")
	case err != nil:
		add("spec.url", t.URL, "not a URL: "+err.Error())
	case u.Scheme != "https" && u.Scheme != "http":
		add("spec.url", t.URL, `the scheme must be "https" (the kubelet's port 10250) or "http" (its read-only port)`)
	case u.Host == "" || u.Hostname() == "":
		add("spec.url", t.URL, "must name a host")
	case u.User != nil:
		add("spec.url", t.URL, "must not hold credentials; use spec.bearerTokenFile or a client certificate")
	case u.RawQuery != "" || u.Fragment != "":
		add("spec.url", t.URL, "must not have a query or a fragment")
	default:
		scheme = u.Scheme
	}
	for _, f := range []struct{ field, value string }{
		{"spec.caFile", t.CAFile}, {"spec.clientCertFile", t.ClientCertFile},
		{"spec.clientKeyFile", t.ClientKeyFile}, {"spec.bearerTokenFile", t.BearerTokenFile},
	} {
		if f.value != "" && !path.IsAbs(f.value) {
			add(f.field, f.value, "must be an absolute path")
		}
	}
	if t.CAFile != "" && t.CAData != "" {
		add("spec.caData", "", "give the CA bundle as spec.caFile or spec.caData, not both")
	}
	if t.CAData != "" {
		if reason := pemCertificateProblem(t.CAData); reason != "" {
			add("spec.caData", "", reason)
		}
	}
	switch {
	case t.ClientCertFile != "" && t.ClientKeyFile == "":
		add("spec.clientKeyFile", "", "required with spec.clientCertFile")
	case t.ClientKeyFile != "" && t.ClientCertFile == "":
		add("spec.clientCertFile", "", "required with spec.clientKeyFile")
	}
	if scheme == "http" {
		for _, f := range []struct {
			field string
			set   bool
		}{
			{"spec.caFile", t.CAFile != ""}, {"spec.caData", t.CAData != ""},
			{"spec.clientCertFile", t.ClientCertFile != ""}, {"spec.insecureSkipVerify", t.InsecureSkipVerify},
		} {
			if f.set {
				add(f.field, "", "applies to https URLs only")
			}
		}
	}
	switch t.Source {
	case SourceAPI, SourceConfig:
	default:
		add("status.source", string(t.Source), `supported values: "api", "config"`)
	}
	return invalid("KubeletTarget", t.Name, errs)
}

// pemCertificateProblem says what is wrong with a PEM bundle that should
// hold one or more certificates, or returns "".
func pemCertificateProblem(data string) string {
	rest := []byte(data)
	n := 0
	for {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return "holds a " + block.Type + " block; only CERTIFICATE blocks belong in a CA bundle"
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return "holds a certificate that does not parse: " + err.Error()
		}
		n++
	}
	if n == 0 {
		return "holds no PEM certificate"
	}
	return ""
}
