package app

import (
	"strings"
	"testing"

	"herd/events"
)

func TestParseDatabase(t *testing.T) {
	for _, c := range []struct {
		in, dataDir string
		want        Database
		shown       string
	}{
		{"", "/var/lib/herd", Database{Engine: events.EngineSQLite, Path: "/var/lib/herd/herd.db"}, "sqlite:///var/lib/herd/herd.db"},
		{"sqlite:///srv/herd/herd.db", "ignored", Database{Engine: events.EngineSQLite, Path: "/srv/herd/herd.db"}, "sqlite:///srv/herd/herd.db"},
		{"sqlite://herd-data/other.db", "", Database{Engine: events.EngineSQLite, Path: "herd-data/other.db"}, "sqlite://herd-data/other.db"},
		{"postgres://herd:s3cret@db1,db2/herd?target_session_attrs=read-write", "", Database{Engine: events.EnginePostgres,
			URL: "postgres://herd:s3cret@db1,db2/herd?target_session_attrs=read-write"}, "postgres://herd:xxxxx@db1,db2/herd?target_session_attrs=read-write"},
		{"postgresql://herd@127.0.0.1/herd", "", Database{Engine: events.EnginePostgres, URL: "postgresql://herd@127.0.0.1/herd"}, "postgresql://herd@127.0.0.1/herd"},
		{"host=127.0.0.1 dbname=herd password=s3cret", "", Database{Engine: events.EnginePostgres, URL: "host=127.0.0.1 dbname=herd password=s3cret"}, "host=127.0.0.1 dbname=herd password=xxxxx"},
	} {
		got, err := ParseDatabase(c.in, c.dataDir)
		if err != nil || got != c.want || got.String() != c.shown {
			t.Errorf("ParseDatabase(%q) = %+v (%s), %v; want %+v (%s)", c.in, got, got, err, c.want, c.shown)
		}
	}
	for _, bad := range []string{"sqlite://", "sqlite:///srv/herd/", "mysql://herd@db/herd", "herd.db"} {
		_, err := ParseDatabase(bad, "/var/lib/herd")
		if err == nil || !strings.Contains(err.Error(), "--database") {
			t.Errorf("ParseDatabase(%q): %v, want an error naming --database", bad, err)
		}
	}
	// A password never reaches an error message.
	if _, err := ParseDatabase("mysql://herd:s3cret@db/herd", ""); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("error shows the password: %v", err)
	}
}
