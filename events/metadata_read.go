package events

import (
	"bytes"
	"fmt"
	"unicode/utf8"

	gojson "github.com/goccy/go-json"
)

// decodeMetadata is an event's stored metadata column as Metadata and
// Continues; names, when not nil, gives the strings it repeats.
//
// herd writes the column itself (metadataJSON: encoding/json's output
// of storedMetadata, no space, its keys in one order), and every reader
// of the log decodes it for every event: a list of what an event led to
// decodes 10,000. The JSON herd writes is read here directly, without a
// decoder's reflection and with a string for a value only when names
// holds none like it; anything else — a key herd does not write, an
// escape, a null, a space, bytes that are not UTF-8, JSON that is
// broken — goes to the JSON decoder, which answers as it always has.
func decodeMetadata(b []byte, names *interner) (storedMetadata, error) {
	if md, ok := decodeOwnMetadata(b, names); ok {
		return md, nil
	}
	// goccy/go-json decodes as encoding/json does, in a fraction of
	// the time.
	var md storedMetadata
	if err := gojson.Unmarshal(b, &md); err != nil {
		return storedMetadata{}, fmt.Errorf("metadata: %w", err)
	}
	return md, nil
}

// decodeOwnMetadata reads b when it is an object of string members
// named as storedMetadata's JSON names them and a boolean "continues",
// each value a plain string (no escape, no control byte, valid UTF-8);
// ok is false for anything else, b left to the JSON decoder.
func decodeOwnMetadata(b []byte, names *interner) (md storedMetadata, ok bool) {
	if len(b) < 2 || b[0] != '{' {
		return storedMetadata{}, false
	}
	rest := b[1:]
	if rest[0] == '}' {
		return md, len(rest) == 1
	}
	for {
		key, after, ok := plainString(rest)
		if !ok || len(after) == 0 || after[0] != ':' {
			return storedMetadata{}, false
		}
		rest = after[1:]
		if string(key) == "continues" {
			switch {
			case bytes.HasPrefix(rest, []byte("true")):
				md.Continues, rest = true, rest[4:]
			case bytes.HasPrefix(rest, []byte("false")):
				md.Continues, rest = false, rest[5:]
			default:
				return storedMetadata{}, false
			}
		} else {
			var field *string
			switch string(key) {
			case "actor":
				field = &md.Actor
			case "causationId":
				field = &md.CausationID
			case "correlationId":
				field = &md.CorrelationID
			case "source":
				field = &md.Source
			default:
				return storedMetadata{}, false
			}
			value, after, ok := plainString(rest)
			if !ok {
				return storedMetadata{}, false
			}
			*field, rest = names.str(value), after
		}
		switch {
		case len(rest) == 1 && rest[0] == '}':
			return md, true
		case len(rest) > 1 && rest[0] == ',':
			rest = rest[1:]
		default:
			return storedMetadata{}, false
		}
	}
}

// plainString is the string b starts with, when it is quoted and holds
// no escape, no control byte and only UTF-8; rest is what follows its
// closing quote.
func plainString(b []byte) (s, rest []byte, ok bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, nil, false
	}
	end := bytes.IndexByte(b[1:], '"')
	if end < 0 {
		return nil, nil, false
	}
	s = b[1 : 1+end]
	ascii := true
	for _, c := range s {
		if c < 0x20 || c == '\\' {
			return nil, nil, false
		}
		if c >= utf8.RuneSelf {
			ascii = false
		}
	}
	if !ascii && !utf8.Valid(s) {
		return nil, nil, false
	}
	return s, b[2+end:], true
}

// interner hands out one string for equal bytes read in one scan: the
// actors, sources, causes and correlations of a list repeat (a drain's
// 10,000 effects name a few of each), and each repeat read as a string
// of its own is an allocation and memory held for nothing.
type interner struct {
	m map[string]string
}

// internMax bounds the strings an interner keeps: past it, a new one is
// handed out but not kept (a replay's causes are mostly each its own).
const internMax = 4096

// str is b as a string, the one handed out before for equal bytes when
// there is one. A nil interner makes a string each time.
func (in *interner) str(b []byte) string {
	if in == nil {
		return string(b)
	}
	if s, ok := in.m[string(b)]; ok {
		return s
	}
	s := string(b)
	if in.m == nil {
		in.m = make(map[string]string)
	}
	if len(in.m) < internMax {
		in.m[s] = s
	}
	return s
}
