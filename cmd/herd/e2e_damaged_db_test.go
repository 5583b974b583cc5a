package main

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"herd/events"
)

// TestServeRefusesDamagedDatabase: herd serve starts on no file (a new
// fleet) but refuses a herd.db that is there and is not a whole herd log —
// empty, with flipped bytes, another application's — naming the file,
// what is wrong and how to restore, and leaves the file as it was.
func TestServeRefusesDamagedDatabase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// make writes the file into the data directory dir.
		make func(t *testing.T, dir string)
		// want are what the refusal must say besides the path.
		want []string
	}{
		{
			name: "zero bytes",
			make: func(t *testing.T, dir string) { writeFile(t, filepath.Join(dir, events.DatabaseFileName), nil) },
			want: []string{"is empty (0 bytes)", "restore", "from a backup", "move the file away"},
		},
		{
			name: "ten flipped bytes",
			make: func(t *testing.T, dir string) {
				srv := startServe(t, serveOptions{DataDir: dir})
				registerAgent(t, srv.URL, "damaged-01")
				srv.stop()
				flipPageBytes(t, filepath.Join(dir, events.DatabaseFileName), 10)
			},
			want: []string{"is damaged", "PRAGMA quick_check", "restore", "from a backup", `.recover`, "herd replay"},
		},
		{
			name: "another application's SQLite database",
			make: func(t *testing.T, dir string) {
				db, err := sql.Open("sqlite3", filepath.Join(dir, events.DatabaseFileName))
				if err != nil {
					t.Fatal(err)
				}
				defer db.Close() //nolint:errcheck // the test fails on the statement's error
				if _, err := db.ExecContext(t.Context(), `CREATE TABLE moz_places (id INTEGER PRIMARY KEY, url TEXT); INSERT INTO moz_places (url) VALUES ('https://example.org/')`); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"is not a herd event log", "moz_places", "restore", "move the file away"},
		},
		{
			name: "a file that is not SQLite",
			make: func(t *testing.T, dir string) {
				writeFile(t, filepath.Join(dir, events.DatabaseFileName), []byte("\x89PNG\r\n\x1a\n not a database at all"))
			},
			want: []string{"is not a SQLite database", "PNG", "restore"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			tt.make(t, dir)
			path := filepath.Join(dir, events.DatabaseFileName)
			before := readFile(t, path)
			res := herd(t, nil, "serve", "--data-dir", dir, "--listen", "127.0.0.1:0", "--log-level", "warn")
			if res.Code == 0 {
				t.Fatalf("herd serve on a damaged herd.db exited 0\nstdout:\n%s\nstderr:\n%s", res.Stdout, res.Stderr)
			}
			for _, want := range append([]string{"the event log " + path, "herd will not start on it"}, tt.want...) {
				if !strings.Contains(res.Stderr, want) {
					t.Errorf("the refusal does not say %q:\n%s", want, res.Stderr)
				}
			}
			if after := readFile(t, path); !bytes.Equal(before, after) {
				t.Errorf("herd serve changed the refused file: %d bytes before, %d after", len(before), len(after))
			}
		})
	}
}

// flipPageBytes inverts the first byte — the b-tree page type — of n pages
// of the SQLite file at path from page 2 on, which a fresh herd log uses
// for its tables' roots: what a bad disk or a stray write does to a file.
func flipPageBytes(t *testing.T, path string, n int) {
	t.Helper()
	if _, err := os.Stat(path + "-wal"); err == nil {
		t.Fatalf("%s-wal is still there after a clean stop: the pages flipped may not be the ones SQLite reads", path)
	}
	b := readFile(t, path)
	pageSize := int(binary.BigEndian.Uint16(b[16:18])) // the header's page size; 1 means 65536
	if pageSize == 1 {
		pageSize = 65536
	}
	if len(b) < (n+1)*pageSize {
		t.Fatalf("%s has %d pages, want more than %d to flip", path, len(b)/pageSize, n)
	}
	for page := 2; page < 2+n; page++ {
		b[(page-1)*pageSize] ^= 0xff
	}
	writeFile(t, path, b)
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writeFile(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}
