package httpapi

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
)

// TestReadBodyReadsWhatWasSentWhateverTheDeclaredLength holds readBody
// to io.ReadAll's bytes and errors for a body shorter, longer or as long
// as its Content-Length says, an unknown length, a body cut by
// MaxBodyBytes and a reader that fails.
func TestReadBodyReadsWhatWasSentWhateverTheDeclaredLength(t *testing.T) {
	body := strings.Repeat(`{"metadata":{"name":"n1"}}`, 200)
	for _, tc := range []struct {
		name     string
		body     string
		declared int64
	}{
		{"exact", body, int64(len(body))},
		{"unknown", body, -1},
		{"declared longer", body, int64(len(body)) + 100},
		{"declared shorter", body, 10},
		{"one byte", "x", 1},
		{"declared above the limit", body, MaxBodyBytes + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequestWithContext(t.Context(), "POST", "/api/v1/nodes", iotest.HalfReader(strings.NewReader(tc.body)))
			r.ContentLength = tc.declared
			got, err := readBody(r)
			if err != nil {
				t.Fatalf("readBody: %v", err)
			}
			if string(got) != tc.body {
				t.Fatalf("read %d bytes, want the %d sent", len(got), len(tc.body))
			}
		})
	}

	t.Run("empty", func(t *testing.T) {
		r := httptest.NewRequestWithContext(t.Context(), "POST", "/api/v1/nodes", strings.NewReader(""))
		if _, err := readBody(r); !errors.Is(err, errEmptyBody) {
			t.Fatalf("readBody of an empty body: %v, want errEmptyBody", err)
		}
	})

	t.Run("over the limit", func(t *testing.T) {
		big := bytes.Repeat([]byte("x"), MaxBodyBytes+10)
		r := httptest.NewRequestWithContext(t.Context(), "POST", "/api/v1/nodes", bytes.NewReader(big))
		r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, MaxBodyBytes)
		var tooLarge *http.MaxBytesError
		if _, err := readBody(r); !errors.As(err, &tooLarge) {
			t.Fatalf("readBody of %d bytes: %v, want http.MaxBytesError", len(big), err)
		}
	})

	t.Run("failing reader", func(t *testing.T) {
		broken := errors.New("connection reset")
		r := httptest.NewRequestWithContext(t.Context(), "POST", "/api/v1/nodes", io.MultiReader(strings.NewReader(body[:100]), iotest.ErrReader(broken)))
		r.ContentLength = int64(len(body))
		if _, err := readBody(r); !errors.Is(err, broken) {
			t.Fatalf("readBody: %v, want %v", err, broken)
		}
	})
}

// TestReadBodyAllocatesOnceForADeclaredLength: a body whose length the
// client declared is read into one buffer of that size, not grown by
// doubling from 512 bytes (a Node create's body is a few kilobytes).
func TestReadBodyAllocatesOnceForADeclaredLength(t *testing.T) {
	body := []byte(strings.Repeat(`{"metadata":{"name":"n1"}}`, 150))
	src := bytes.NewReader(body)
	r := httptest.NewRequestWithContext(t.Context(), "POST", "/api/v1/nodes", nil)
	r.Body = io.NopCloser(src)
	r.ContentLength = int64(len(body))
	allocs := testing.AllocsPerRun(100, func() {
		src.Reset(body)
		if _, err := readBody(r); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Fatalf("readBody of a %d-byte body with its length declared: %.0f allocations, want 1", len(body), allocs)
	}
}
