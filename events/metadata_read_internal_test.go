package events

import (
	"encoding/json"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
)

// TestDecodeMetadataAsJSON: the metadata column reads as encoding/json
// reads it, whether herd wrote it or not — herd's own JSON on the
// direct path, anything else through the decoder — and what JSON
// cannot read is an error.
func TestDecodeMetadataAsJSON(t *testing.T) {
	own := func(md Metadata, continues bool) string {
		b, err := metadataJSON(md, continues)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for _, tt := range []struct {
		name, in string
		direct   bool // read without the JSON decoder
	}{
		{"empty object", `{}`, true},
		{"herd's, every field", own(Metadata{Actor: "alice", CausationID: "c", CorrelationID: "r", Source: "drain"}, true), true},
		{"herd's, some fields", own(Metadata{Actor: "system:node:n-1", Source: "kubelet"}, false), true},
		{"herd's, continues alone", own(Metadata{}, true), true},
		{"herd's, non-ASCII", own(Metadata{Actor: "zoë 🐑"}, false), true},
		{"herd's, escaped", own(Metadata{Actor: "a\"b\\c<d>&\n"}, false), false},
		{"continues false", `{"actor":"a","continues":false}`, true},
		{"keys in another order", `{"source":"s","actor":"a"}`, true},
		{"a key repeated", `{"actor":"a","actor":"b"}`, true},
		{"a key in other case", `{"Actor":"a"}`, false},
		{"an unknown key", `{"actor":"a","extra":1}`, false},
		{"spaces", `{ "actor" : "a" }`, false},
		{"a null", `{"actor":null}`, false},
		{"not UTF-8", "{\"actor\":\"a\xffb\"}", false},
		{"a unicode escape", `{"actor":"\u00e9"}`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var want storedMetadata
			if err := json.Unmarshal([]byte(tt.in), &want); err != nil {
				t.Fatalf("encoding/json: %v", err)
			}
			got, err := decodeMetadata([]byte(tt.in), &interner{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s (-encoding/json +read):\n%s", tt.in, diff)
			}
			if _, direct := decodeOwnMetadata([]byte(tt.in), nil); direct != tt.direct {
				t.Errorf("%s read directly: %v, want %v", tt.in, direct, tt.direct)
			}
		})
	}
	for _, bad := range []string{`{`, `{"actor":"a"`, `{"actor":"a"}}`, `{"actor":"a",}`, `{"continues":yes}`, `{"continues":"true"}`, `{"actor":1}`, `[]`, `"a"`, `{"actor":"a"`} {
		if md, err := decodeMetadata([]byte(bad), nil); err == nil {
			t.Errorf("%s read as %+v, want an error", bad, md)
		}
	}
}

// FuzzDecodeMetadata: whatever the column holds, it reads as
// encoding/json reads it, or as an error where that fails.
func FuzzDecodeMetadata(f *testing.F) {
	for _, s := range []string{`{}`, `{"actor":"a","causationId":"c","correlationId":"r","source":"s","continues":true}`,
		`{"actor":"a\u0041"}`, `{"actor":"a","continues":false}`, "{\"actor\":\"\xc3\"}", `{"actor":"a",}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, direct := decodeOwnMetadata(b, &interner{})
		if !direct {
			return // the JSON decoder's, as before
		}
		var want storedMetadata
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("%q read directly as %+v, encoding/json: %v", b, got, err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("%q (-encoding/json +read):\n%s", b, diff)
		}
	})
}

// TestInternerSharesStrings: equal bytes read in one scan are one
// string, up to internMax of them; past it, still the right string.
func TestInternerSharesStrings(t *testing.T) {
	var in interner
	a, b := in.str([]byte("replicaset")), in.str([]byte("replicaset"))
	if a != "replicaset" || b != a || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Fatalf("interned %q and %q apart", a, b)
	}
	for i := range internMax + 10 {
		s := string(rune('a'+i%26)) + string(rune(i))
		if got := in.str([]byte(s)); got != s {
			t.Fatalf("str(%q) = %q", s, got)
		}
	}
	if len(in.m) > internMax {
		t.Errorf("interner keeps %d strings, at most %d", len(in.m), internMax)
	}
	var none *interner
	if got := none.str([]byte("x")); got != "x" {
		t.Errorf("nil interner: %q", got)
	}
}
