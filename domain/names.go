package domain

import "strings"

// Kubernetes' naming rules (k8s.io/apimachinery/pkg/util/validation), written
// out by hand so that the domain needs nothing beyond the standard library.
// Each check returns the problems it found as messages worded like
// Kubernetes', so that kubectl users read what they are used to.

const (
	// dns1123SubdomainMaxLength is the longest name a node may have.
	dns1123SubdomainMaxLength = 253
	// qualifiedNameMaxLength bounds the name part of a label or annotation
	// key, and labelValueMaxLength a label value.
	qualifiedNameMaxLength = 63
	labelValueMaxLength    = 63

	dns1123SubdomainMsg = "a lowercase RFC 1123 subdomain must consist of lower case " +
		"alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character"
	qualifiedNameCharsMsg = "must consist of alphanumeric characters, '-', '_' or '.', " +
		"and must start and end with an alphanumeric character"
	qualifiedNameMsg = "a qualified name " + qualifiedNameCharsMsg +
		", with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
	labelValueMsg = "a valid label must be an empty string or consist of alphanumeric " +
		"characters, '-', '_' or '.', and must start and end with an alphanumeric character"
)

// dns1123SubdomainProblems checks a lowercase RFC 1123 subdomain: at most 253
// characters of [a-z0-9-.], each dot-separated part starting and ending with
// a lowercase letter or digit.
func dns1123SubdomainProblems(s string) []string {
	var out []string
	if len(s) > dns1123SubdomainMaxLength {
		out = append(out, "must be no more than 253 characters")
	}
	for part := range strings.SplitSeq(s, ".") {
		if !isDNSLabelPart(part) {
			return append(out, dns1123SubdomainMsg)
		}
	}
	return out
}

// isDNSLabelPart reports whether s is non-empty, made of [a-z0-9-], and
// starts and ends with [a-z0-9].
func isDNSLabelPart(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isLowerAlnum(c) && c != '-' {
			return false
		}
	}
	return true
}

// qualifiedNameProblems checks a label or annotation key: a name part of at
// most 63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric,
// optionally behind a DNS subdomain prefix and a '/'.
func qualifiedNameProblems(s string) []string {
	var out []string
	name := s
	switch strings.Count(s, "/") {
	case 0:
	case 1:
		var prefix string
		prefix, name, _ = strings.Cut(s, "/")
		if prefix == "" {
			out = append(out, "prefix part must be non-empty")
		} else {
			for _, msg := range dns1123SubdomainProblems(prefix) {
				out = append(out, "prefix part "+msg)
			}
		}
	default:
		return []string{qualifiedNameMsg}
	}
	switch {
	case name == "":
		out = append(out, "name part must be non-empty")
	case len(name) > qualifiedNameMaxLength:
		out = append(out, "name part must be no more than 63 characters")
	}
	if name != "" && !isQualifiedPart(name) {
		out = append(out, "name part "+qualifiedNameCharsMsg)
	}
	return out
}

// labelValueProblems checks a label value: empty, or at most 63 characters
// of [A-Za-z0-9-_.] starting and ending alphanumeric.
func labelValueProblems(v string) []string {
	var out []string
	if len(v) > labelValueMaxLength {
		out = append(out, "must be no more than 63 characters")
	}
	if v != "" && !isQualifiedPart(v) {
		out = append(out, labelValueMsg)
	}
	return out
}

// isQualifiedPart reports whether s is made of [A-Za-z0-9-_.] and starts
// and ends with [A-Za-z0-9].
func isQualifiedPart(s string) bool {
	if s == "" || !isAlnum(s[0]) || !isAlnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func isLowerAlnum(c byte) bool { return 'a' <= c && c <= 'z' || '0' <= c && c <= '9' }

func isAlnum(c byte) bool { return isLowerAlnum(c) || 'A' <= c && c <= 'Z' }
