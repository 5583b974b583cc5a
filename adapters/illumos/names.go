package illumos

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"herd/domain"
)

// Name limits, from illumos. A zone name is at most 64 characters
// (zonecfg(8)); ZONENAME_MAX is 64 bytes with the terminating NUL, so the
// names herd makes keep to 63, which is valid by either reading. A
// data-link name is at most MAXLINKNAMELEN-1, 31 characters.
const (
	maxZoneName     = 64
	herdZoneNameMax = 63
	maxLinkName     = 31
)

// herdZonePrefix starts every zone herd makes, so that herd's zones are
// told apart from an operator's at a glance and by List.
const herdZonePrefix = "herd-"

// podDigest is a digest of what makes a pod unique: namespace, name and
// UID, joined with "/", which neither a namespace nor a name may contain,
// so that different pods never join to the same text (a-b/c and a/b-c
// stay apart), and a pod recreated under the same name gets new names.
func podDigest(p domain.Pod) [sha256.Size]byte {
	return sha256.Sum256([]byte(p.Namespace + "/" + p.Name + "/" + p.UID))
}

// ZoneName is the pod's zone: "herd-", the namespace and name for the
// operator's eye, and 16 hex digits of the pod's digest for uniqueness.
// It is at most 63 characters of [a-z0-9.-], starts with a letter, and
// can be neither "global" nor begin with "SUNW".
func ZoneName(p domain.Pod) string {
	sum := podDigest(p)
	suffix := "-" + hex.EncodeToString(sum[:8])
	readable := p.Namespace + "." + p.Name
	if room := herdZoneNameMax - len(herdZonePrefix) - len(suffix); len(readable) > room {
		readable = readable[:room]
	}
	readable = strings.TrimRight(readable, ".-")
	return herdZonePrefix + readable + suffix
}

// VNICName is the pod's VNIC: "herd", 20 letters a–p spelling 80 bits of
// the pod's digest, and "0". dladm wants letters, digits and underscores,
// a letter first and a digit last, the trailing number without a leading
// zero, at most 31 characters: the name is 25.
func VNICName(p domain.Pod) string {
	sum := podDigest(p)
	return "herd" + letters(sum[:10]) + "0"
}

// GatewayVNICName is the global zone's VNIC on the etherstub that carries
// a pool's gateway address, in etherstub mode.
func GatewayVNICName(pool string) string {
	sum := sha256.Sum256([]byte(pool))
	return "herdgw" + letters(sum[:8]) + "0"
}

// letters spells b in the letters a–p, one per nibble: no digits, so that
// a name built from them ends in exactly the digit appended to it.
func letters(b []byte) string {
	out := make([]byte, 0, 2*len(b))
	for _, c := range b {
		out = append(out, 'a'+c>>4, 'a'+c&0xf)
	}
	return string(out)
}

// ValidZoneName reports what is wrong with a zone name, by zonecfg's
// rules: at most 64 characters of letters, digits, '-', '_' and '.',
// starting with a letter or digit, not "global", not beginning "SUNW".
func ValidZoneName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("zone name is empty")
	case len(s) > maxZoneName:
		return fmt.Errorf("zone name %q: longer than %d characters", s, maxZoneName)
	case !isAlnum(s[0]):
		return fmt.Errorf("zone name %q: must start with a letter or digit", s)
	case s == "global":
		return fmt.Errorf(`zone name "global" is the global zone's`)
	case strings.HasPrefix(s, "SUNW"):
		return fmt.Errorf("zone name %q: names beginning SUNW are reserved", s)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '-' && c != '_' && c != '.' {
			return fmt.Errorf("zone name %q: %q is not a letter, digit, '-', '_' or '.'", s, c)
		}
	}
	return nil
}

// ValidLinkName reports what is wrong with a data-link name, by dladm's
// rules: at most 31 characters of letters, digits and underscores,
// starting with a letter and ending with a number that has no leading
// zero (the link's PPA).
func ValidLinkName(s string) error {
	switch {
	case s == "":
		return fmt.Errorf("link name is empty")
	case len(s) > maxLinkName:
		return fmt.Errorf("link name %q: longer than %d characters", s, maxLinkName)
	case !isLetter(s[0]):
		return fmt.Errorf("link name %q: must start with a letter", s)
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isAlnum(c) && c != '_' {
			return fmt.Errorf("link name %q: %q is not a letter, digit or underscore", s, c)
		}
	}
	end := len(s)
	for end > 0 && isDigit(s[end-1]) {
		end--
	}
	switch ppa := s[end:]; {
	case ppa == "":
		return fmt.Errorf("link name %q: must end with a digit", s)
	case len(ppa) > 1 && ppa[0] == '0':
		return fmt.Errorf("link name %q: its number %s has a leading zero", s, ppa)
	}
	return nil
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isAlnum(c byte) bool  { return isLetter(c) || isDigit(c) }
