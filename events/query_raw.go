package events

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"
)

// A page read one event at a time (QueryEach) takes its rows from the
// engine's driver itself, on one of the pool's connections, rather than
// through database/sql's Rows and Scan: for what an event led to
// (10,000 events a page) database/sql's copying and converting of each
// column was a sixth of herd's time on SQLite and, with pgx's values
// boxed for it, half of it on PostgreSQL. On PostgreSQL the columns are
// read as the wire gives them (pgx's raw values, integers in binary),
// with no value made for a column but the record's strings.

// rowRecord makes Records of rows selected with recordColumns, keeping
// between rows what the next one uses again: the payload's and the
// metadata's bytes and the strings the rows repeat.
type rowRecord struct {
	payload, metadata []byte
	names             interner
}

// set sets r to the row's columns but its payload and metadata, given
// before (payload, metadata): the payload is that slice, which the next
// row writes over.
func (rr *rowRecord) set(r *Record, position int64, id, stream string, version int64, typ string, schemaVersion, recordedAt int64) error {
	*r = Record{Position: position, ID: id, Stream: stream, Version: version, Type: typ,
		SchemaVersion: int(schemaVersion), RecordedAt: time.Unix(0, recordedAt).UTC()}
	// As Query reads it: an empty column is an empty payload, not a nil
	// one.
	r.Payload = json.RawMessage(rr.payload)
	if r.Payload == nil {
		r.Payload = json.RawMessage{}
	}
	return r.setMetadata(rr.metadata, &rr.names)
}

// eachDriverRecord runs query on one of db's connections and calls fn
// with each row as a Record (the one Record again for every row), its
// rows read from the driver's own (database/sql/driver): SQLite's.
func eachDriverRecord(ctx context.Context, db *sql.DB, query string, args []any, fn func(*Record) error) error {
	named := make([]driver.NamedValue, len(args))
	for i, a := range args {
		v, err := driver.DefaultParameterConverter.ConvertValue(a)
		if err != nil {
			return fmt.Errorf("query events: argument %d: %w", i+1, err)
		}
		named[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return onDriverConn(ctx, db, fn, func(dc any, fn func(*Record) error) error {
		q, ok := dc.(driver.QueryerContext)
		if !ok {
			return fmt.Errorf("the driver's connection (%T) runs no queries of its own", dc)
		}
		rows, err := q.QueryContext(ctx, query, named)
		if err != nil {
			return err
		}
		err = eachDriverRow(rows, fn)
		if cerr := rows.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

// onDriverConn runs read on one of db's connections as its driver's own,
// with fn for each record: an error of fn's ends the read and is
// returned as it is, one of the read's as Query's are.
func onDriverConn(ctx context.Context, db *sql.DB, fn func(*Record) error, read func(dc any, fn func(*Record) error) error) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("query events: %w", withContext(ctx, err))
	}
	defer func() { _ = conn.Close() }() // back to the pool
	var fnErr error
	err = conn.Raw(func(dc any) error {
		return read(dc, func(r *Record) error {
			fnErr = fn(r)
			return fnErr
		})
	})
	if fnErr != nil {
		return fnErr // fn's, as it is
	}
	if err != nil {
		return fmt.Errorf("query events: %w", withContext(ctx, err))
	}
	return nil
}

// eachDriverRow calls fn with each of rows' records; an error of fn's
// ends it.
func eachDriverRow(rows driver.Rows, fn func(*Record) error) error {
	if n := len(rows.Columns()); n != recordColumnCount {
		return fmt.Errorf("%d columns, want %d", n, recordColumnCount)
	}
	var (
		rr   rowRecord
		rec  Record
		dest [recordColumnCount]driver.Value
		ints [4]int64
		strs [3]string
	)
	for {
		if err := rows.Next(dest[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		for i, col := range [...]int{0, 3, 5, 6} { // position, version, schema_version, recorded_at
			v, ok := dest[col].(int64)
			if !ok {
				return fmt.Errorf("column %d holds %T, not an integer", col+1, dest[col])
			}
			ints[i] = v
		}
		for i, col := range [...]int{1, 2, 4} { // event_id, stream, type
			switch v := dest[col].(type) {
			case string:
				strs[i] = v
			case []byte:
				strs[i] = string(v)
			default:
				return fmt.Errorf("column %d holds %T, not text", col+1, dest[col])
			}
		}
		var err error
		if rr.payload, err = driverBytes(rr.payload, dest[7]); err != nil {
			return err
		}
		if rr.metadata, err = driverBytes(rr.metadata, dest[8]); err != nil {
			return err
		}
		if err := rr.set(&rec, ints[0], strs[0], strs[1], ints[1], strs[2], ints[2], ints[3]); err != nil {
			return err
		}
		if err := fn(&rec); err != nil {
			return err
		}
	}
}

// recordColumnCount is how many columns recordColumns (and
// pgRecordColumns) select.
const recordColumnCount = 9

// driverBytes is a text or byte column's value copied into buf (nil
// for NULL).
func driverBytes(buf []byte, v driver.Value) ([]byte, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		return append(buf[:0], v...), nil
	case []byte:
		return append(buf[:0], v...), nil
	}
	return nil, fmt.Errorf("a payload or metadata column holds %T", v)
}

// eachPgRecord is eachDriverRecord on PostgreSQL: on one of db's
// connections as pgx's own, each row's columns read as the wire gives
// them.
func eachPgRecord(ctx context.Context, db *sql.DB, query string, args []any, fn func(*Record) error) error {
	return onDriverConn(ctx, db, fn, func(dc any, fn func(*Record) error) error {
		c, ok := dc.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("the driver's connection (%T) is not pgx's", dc)
		}
		rows, err := c.Conn().Query(ctx, query, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		fields := rows.FieldDescriptions()
		if len(fields) != recordColumnCount {
			return fmt.Errorf("%d columns, want %d", len(fields), recordColumnCount)
		}
		var (
			rr   rowRecord
			rec  Record
			ints [4]int64
		)
		for rows.Next() {
			raw := rows.RawValues()
			for i, col := range [...]int{0, 3, 5, 6} { // position, version, schema_version, recorded_at
				if ints[i], err = pgInt(raw[col], fields[col]); err != nil {
					return err
				}
			}
			if rr.payload, err = pgBytes(rr.payload, raw[7], fields[7]); err != nil {
				return err
			}
			if rr.metadata, err = pgBytes(rr.metadata, raw[8], fields[8]); err != nil {
				return err
			}
			// The type, which the rows repeat, is the interner's string.
			if err := rr.set(&rec, ints[0], string(raw[1]), string(raw[2]), ints[1], rr.names.str(raw[4]), ints[2], ints[3]); err != nil {
				return err
			}
			if err := fn(&rec); err != nil {
				return err
			}
		}
		return rows.Err()
	})
}

// pgInt is an integer column's value as the wire gives it: in binary,
// big-endian, of its type's size, or as text.
func pgInt(b []byte, f pgconn.FieldDescription) (int64, error) {
	if b == nil {
		return 0, fmt.Errorf("column %s is NULL", f.Name)
	}
	if f.Format == pgx.TextFormatCode {
		return strconv.ParseInt(string(b), 10, 64)
	}
	switch len(b) {
	case 8:
		return int64(binary.BigEndian.Uint64(b)), nil
	case 4:
		return int64(int32(binary.BigEndian.Uint32(b))), nil
	case 2:
		return int64(int16(binary.BigEndian.Uint16(b))), nil
	}
	return 0, fmt.Errorf("column %s: %d bytes are no binary integer", f.Name, len(b))
}

// pgBytes is a bytea column's value (nil for NULL): the wire's bytes
// in binary, copied into buf, or decoded from text's hex form.
func pgBytes(buf, b []byte, f pgconn.FieldDescription) ([]byte, error) {
	if b == nil {
		return nil, nil
	}
	if f.Format == pgx.BinaryFormatCode {
		return append(buf[:0], b...), nil
	}
	if len(b) < 2 || b[0] != '\\' || b[1] != 'x' {
		return nil, fmt.Errorf("column %s: bytea as text without its \\x", f.Name)
	}
	b = b[2:]
	if n := hex.DecodedLen(len(b)); cap(buf) < n {
		buf = make([]byte, n)
	}
	out := buf[:hex.DecodedLen(len(b))]
	if _, err := hex.Decode(out, b); err != nil {
		return nil, fmt.Errorf("column %s: %w", f.Name, err)
	}
	return out, nil
}
