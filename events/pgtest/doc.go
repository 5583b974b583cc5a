// Package pgtest gives Go tests a real PostgreSQL database: a throwaway
// server started from the machine's own PostgreSQL (Debian's packages in
// /usr/lib/postgresql/<version>/bin; 15 is preferred when several are
// installed), and a fresh, empty database for each test that asks.
//
// The server is started once per test binary, on the first call to URL or
// Server: initdb makes a cluster in a new directory under os.TempDir()
// named herd-pgtest-<pid>-*, and postgres serves it on a free port of
// 127.0.0.1 only (its unix socket lives in the same directory), with trust
// authentication and fsync on. When the test process is root the server
// runs as the postgres system user, since initdb and postgres refuse to
// run as root; otherwise it runs as the current user.
//
// A package whose tests use pgtest calls Run from its TestMain, which
// stops the server and removes its directory once the tests are done:
//
//	func TestMain(m *testing.M) { os.Exit(pgtest.Run(m)) }
//
// If the test process is killed before Run can do that, on Linux the
// server gets SIGQUIT (PostgreSQL's immediate shutdown) from the kernel as
// its parent dies; and the next test binary that starts a server removes
// the directories of test processes that no longer exist, stopping any
// server still running in one first.
//
// When PostgreSQL is not installed, URL and Server skip the test and say
// so; `make deps` installs it. With HERD_REQUIRE_POSTGRES=1 in the
// environment they fail the test instead. Any other failure to start the
// server fails the test.
package pgtest
