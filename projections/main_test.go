package projections

import (
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL's database/sql driver, "pgx"

	"herd/events/pgtest"
)

// TestMain stops the tests' PostgreSQL server when they are done.
func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
