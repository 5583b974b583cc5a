package events

import (
	"database/sql/driver"
	"errors"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
)

// Unavailable reports whether err is the database being out of reach
// rather than refusing what it was asked: no PostgreSQL primary answers
// (refused or broken connections, a server shutting down or starting,
// a standby not yet promoted that refuses writes). The API answers such
// errors with 503 Service Unavailable and Retry-After, as
// kube-apiserver does when etcd is unreachable: the client retries, and
// a write it was not told succeeded may or may not have happened.
func Unavailable(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"): // connection exception
			return true
		case pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03": // admin or crash shutdown, cannot connect now
			return true
		case pgErr.Code == "25006": // read-only transaction: a standby, or a primary demoted
			return true
		}
		return false
	}
	var connectErr *pgconn.ConnectError
	var netErr net.Error
	return errors.As(err, &connectErr) || errors.As(err, &netErr) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.ErrUnexpectedEOF) ||
		pgconn.Timeout(err) || isClosedConn(err)
}

// isClosedConn is pgx's error for a connection it already closed after a
// failure ("conn closed"), which it gives no type of its own.
func isClosedConn(err error) bool {
	return strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "conn busy")
}
