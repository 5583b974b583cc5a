package projections

import (
	"errors"
	"strings"
	"testing"

	"herd/domain"
	"herd/projections/viewstore"
)

// TestARowReadByKeyIsDecodedOrNamedNotFound: the one read wrapper of the
// views gives the row decoded, domain.ErrNotFound naming the resource and
// the name when there is no row, and any other failure of the read or of
// the decoding as it is, named.
func TestARowReadByKeyIsDecodedOrNamedNotFound(t *testing.T) {
	decode := func(b []byte) (string, error) {
		if string(b) == "bad" {
			return "", errors.New("not JSON")
		}
		return "decoded " + string(b), nil
	}
	if got, err := decodeRow("pod", "shop/web", []byte("row"), nil, decode); err != nil || got != "decoded row" {
		t.Errorf("a row: %q, %v", got, err)
	}
	_, err := decodeRow("pod", "shop/web", nil, viewstore.ErrNoRow, decode)
	if !errors.Is(err, domain.ErrNotFound) || err.Error() != `pod "shop/web": not found` {
		t.Errorf("no row: %v, want domain.ErrNotFound named pod \"shop/web\"", err)
	}
	broken := errors.New("disk I/O error")
	_, err = decodeRow("namespaces", "shop", nil, broken, decode)
	if !errors.Is(err, broken) || errors.Is(err, domain.ErrNotFound) || !strings.Contains(err.Error(), `load namespaces "shop"`) {
		t.Errorf("a failed read: %v", err)
	}
	if _, err := decodeRow("node", "web-01", []byte("bad"), nil, decode); err == nil {
		t.Error("a row that does not decode was answered")
	}

	rows := rowsDecoder("node rows", decode)
	got, head, err := rows([][]byte{[]byte("a"), []byte("b")}, 42, nil)
	if err != nil || head != 42 || len(got) != 2 || got[0] != "decoded a" || got[1] != "decoded b" {
		t.Errorf("two rows at 42: %q at %d, %v", got, head, err)
	}
	if _, _, err := rows(nil, 0, broken); !errors.Is(err, broken) || !strings.HasPrefix(err.Error(), "node rows: ") {
		t.Errorf("a failed list: %v", err)
	}
	if _, _, err := rows([][]byte{[]byte("a"), []byte("bad")}, 42, nil); err == nil {
		t.Error("a list with a row that does not decode was answered")
	}
}
