package jsoncodecs

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCodecsAgreeWithEncodingJSON: each codec's bytes for each payload,
// against encoding/json's, and what it decodes from encoding/json's bytes
// against what encoding/json decodes. A codec that differs is reported,
// not failed: the point is to know which could replace encoding/json.
func TestCodecsAgreeWithEncodingJSON(t *testing.T) {
	for _, p := range Payloads() {
		want, err := json.Marshal(p.Value)
		if err != nil {
			t.Fatal(err)
		}
		wantValue := p.New()
		if err := json.Unmarshal(want, wantValue); err != nil {
			t.Fatal(err)
		}
		for _, c := range Codecs[1:] {
			got, err := c.Marshal(p.Value)
			switch {
			case err != nil:
				t.Logf("%s %s: encode: %v", c.Name, p.Name, err)
			case !bytes.Equal(got, want):
				t.Logf("%s %s: encodes differently:\n got %s\nwant %s", c.Name, p.Name, got, want)
			default:
				t.Logf("%s %s: encodes identically", c.Name, p.Name)
			}
			v := p.New()
			if err := c.Unmarshal(want, v); err != nil {
				t.Logf("%s %s: decode: %v", c.Name, p.Name, err)
			} else if diff := cmp.Diff(wantValue, v); diff != "" {
				t.Logf("%s %s: decodes differently (-encoding/json +%s):\n%s", c.Name, p.Name, c.Name, diff)
			}
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, p := range Payloads() {
		for _, c := range Codecs {
			b.Run(p.Name+"/"+c.Name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.Marshal(p.Value); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, p := range Payloads() {
		data, err := json.Marshal(p.Value)
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range Codecs {
			b.Run(p.Name+"/"+c.Name, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					if err := c.Unmarshal(data, p.New()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
