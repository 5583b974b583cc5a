package viewstore

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"herd/events"
)

// ColumnType is a column's type in the views' small vocabulary, which
// each engine spells its own way (Table.CreateSQL).
type ColumnType string

const (
	// TypeKeyText is text compared byte by byte, as names and keys are,
	// so that lists page in the same order on both engines: TEXT on
	// SQLite (whose default collation is bytewise), text COLLATE "C" on
	// PostgreSQL.
	TypeKeyText ColumnType = "keytext"
	// TypeText is text in the engine's default collation: TEXT, text.
	TypeText ColumnType = "text"
	// TypeInt is a 64-bit integer: INTEGER, bigint.
	TypeInt ColumnType = "int"
	// TypeInt32 is a 32-bit integer, a small count: INTEGER (SQLite's
	// integers are all one type), integer. The timeline's seq, which
	// PostgreSQL's first files made so on every database of that engine.
	TypeInt32 ColumnType = "int32"
	// TypeFlag is 0 or 1, as both engines store a flag: INTEGER,
	// smallint (so that one statement, "deleted = 0", serves both).
	TypeFlag ColumnType = "flag"
	// TypeBytes is a byte string (a row's JSON): BLOB, bytea.
	TypeBytes ColumnType = "bytes"
)

// columnTypes spells each type for SQLite, then PostgreSQL.
var columnTypes = map[ColumnType][2]string{
	TypeKeyText: {"TEXT", `text COLLATE "C"`},
	TypeText:    {"TEXT", "text"},
	TypeInt:     {"INTEGER", "bigint"},
	TypeInt32:   {"INTEGER", "integer"},
	TypeFlag:    {"INTEGER", "smallint"},
	TypeBytes:   {"BLOB", "bytea"},
}

// Column is one column of a described table. It is NOT NULL unless Null
// says otherwise.
type Column struct {
	Name string
	Type ColumnType
	Null bool
	// Default is the column's default as a literal both engines read the
	// same way: an integer, or a string in single quotes ('' for the
	// empty one). A column added to a table after its first herd needs a
	// default, or Null, to be added to the rows already there.
	Default string
	// Fill is what sets the column in the rows of a table an older herd
	// made, once, when the column is added to it: a statement per
	// engine, as each engine reads a row's JSON its own way. None leaves
	// them at the default.
	Fill Fill
}

// Fill is a statement for each engine.
type Fill struct {
	SQLite, Postgres string
}

func (f Fill) of(e events.Engine) string {
	if e == events.EnginePostgres {
		return f.Postgres
	}
	return f.SQLite
}

// TableIndex is a secondary index of a described table, partial when Where
// is set: a condition on the table's columns that reads the same on both
// engines (as "deleted = 0" does), in which {0}, {1}… stand for the
// conditions of Holds, which each engine spells its own way.
type TableIndex struct {
	Name    string
	Columns []string
	Where   string
	// Holds are the conditions that a bytes column (a row's JSON) holds
	// a piece of text, {0} the first in Where: SQLite reads the bytes as
	// text, PostgreSQL looks for the text's bytes
	// (events.Dialect.ContainsBytes, which a query repeats word for word
	// to be answered from the index).
	Holds []Holds
}

// Holds is the condition that Column, of type bytes, holds Text.
type Holds struct {
	Column, Text string
}

// holdsMarker is a condition of Holds in an index's Where.
var holdsMarker = regexp.MustCompile(`\{([0-9]+)\}`)

// where is ix's condition on engine e, each condition of Holds spelled
// in e's terms.
func (ix TableIndex) where(e events.Engine) string {
	d := e.Dialect()
	return holdsMarker.ReplaceAllStringFunc(ix.Where, func(m string) string {
		i, _ := strconv.Atoi(m[1 : len(m)-1])
		return d.ContainsBytes(ix.Holds[i].Column, ix.Holds[i].Text)
	})
}

// Table describes one view table once, for both engines: its columns in
// order, its primary key and its secondary indexes. Each engine's DDL is
// made from it (CreateSQL), the table is created or brought up to it when
// the views migrate (DB.Ensure), and its statements are made from its
// Schema.
type Table struct {
	Name    string
	Columns []Column
	// Key is the primary key's columns, in list order.
	Key     []string
	Indexes []TableIndex
	// RowID keeps SQLite's rowid: the rows live in the rowid's tree and
	// the primary key is an index beside it, and a key column may be
	// NULL there (as on a table made so before herd made its views
	// WITHOUT ROWID; PostgreSQL's key is NOT NULL whatever it says).
	RowID bool
}

// identifier is what the descriptions name tables, columns and indexes.
var identifier = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// literal is a default both engines read alike: an integer or a quoted
// string without quotes inside.
var literal = regexp.MustCompile(`^(-?[0-9]+|'[^']*')$`)

// Check says what is wrong with t, naming the table and the column or
// index at fault, or nil when each engine's DDL can be made from it.
func (t Table) Check() error {
	if !identifier.MatchString(t.Name) {
		return fmt.Errorf("described table %q: the name is not a lower-case identifier", t.Name)
	}
	var errs []error
	fail := func(format string, args ...any) {
		errs = append(errs, fmt.Errorf("table %s: "+format, append([]any{t.Name}, args...)...))
	}
	if len(t.Columns) == 0 {
		fail("no columns")
	}
	cols := map[string]Column{}
	for _, c := range t.Columns {
		if !identifier.MatchString(c.Name) {
			fail("column %q: the name is not a lower-case identifier", c.Name)
			continue
		}
		if _, twice := cols[c.Name]; twice {
			fail("column %s is described twice", c.Name)
		}
		cols[c.Name] = c
		if _, ok := columnTypes[c.Type]; !ok {
			fail("column %s: type %q is not one of %s", c.Name, c.Type, typeNames())
		}
		if c.Default != "" && !literal.MatchString(c.Default) {
			fail("column %s: default %s is not an integer or a quoted string", c.Name, c.Default)
		}
		if (c.Fill.SQLite == "") != (c.Fill.Postgres == "") {
			fail("column %s: a fill is needed for both engines or neither", c.Name)
		}
	}
	if len(t.Key) == 0 {
		fail("no primary key")
	}
	for i, k := range t.Key {
		c, ok := cols[k]
		switch {
		case !ok:
			fail("primary key column %s is not one of its columns", k)
		case c.Null && !t.RowID:
			fail("primary key column %s may be NULL", k)
		case slices.Contains(t.Key[:i], k):
			fail("primary key column %s is named twice", k)
		}
	}
	names := map[string]bool{}
	for _, ix := range t.Indexes {
		if !identifier.MatchString(ix.Name) {
			fail("index %q: the name is not a lower-case identifier", ix.Name)
		}
		if names[ix.Name] {
			fail("index %s is described twice", ix.Name)
		}
		names[ix.Name] = true
		if len(ix.Columns) == 0 {
			fail("index %s has no columns", ix.Name)
		}
		for _, c := range ix.Columns {
			if _, ok := cols[c]; !ok {
				fail("index %s: column %s is not one of its columns", ix.Name, c)
			}
		}
		if strings.Contains(ix.Where, ";") {
			fail("index %s: its condition holds a ';'", ix.Name)
		}
		used := make([]bool, len(ix.Holds))
		for _, m := range holdsMarker.FindAllStringSubmatch(ix.Where, -1) {
			i, err := strconv.Atoi(m[1])
			if err != nil || i >= len(ix.Holds) {
				fail("index %s: its condition names %s, and it has %d conditions of Holds", ix.Name, m[0], len(ix.Holds))
				continue
			}
			used[i] = true
		}
		for i, h := range ix.Holds {
			c, ok := cols[h.Column]
			switch {
			case !used[i]:
				fail("index %s: its condition does not name {%d}, Holds' %s", ix.Name, i, h.Column)
			case !ok:
				fail("index %s: Holds' column %s is not one of its columns", ix.Name, h.Column)
			case c.Type != TypeBytes:
				fail("index %s: Holds' column %s is of type %s, not bytes", ix.Name, h.Column, c.Type)
			case h.Text == "":
				fail("index %s: Holds' text in %s is empty", ix.Name, h.Column)
			}
		}
	}
	return errors.Join(errs...)
}

func typeNames() string {
	names := make([]string, 0, len(columnTypes))
	for t := range columnTypes {
		names = append(names, string(t))
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// Schema is what the table's statements are made from: its key, then its
// other columns in order.
func (t Table) Schema() Schema {
	s := Schema{Table: t.Name, Keys: slices.Clone(t.Key)}
	for _, c := range t.Columns {
		if !slices.Contains(t.Key, c.Name) {
			s.Columns = append(s.Columns, c.Name)
		}
	}
	return s
}

// CreateSQL is the statements that make t on engine e, each a no-op
// where what it makes is there already: the table, then its indexes. It
// is refused, as Check refuses it, when t is not a table either engine
// can make.
func (t Table) CreateSQL(e events.Engine) ([]string, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	defs := make([]string, 0, len(t.Columns)+1)
	for _, c := range t.Columns {
		defs = append(defs, c.definition(e))
	}
	defs = append(defs, "PRIMARY KEY ("+strings.Join(t.Key, ", ")+")")
	table := "CREATE TABLE IF NOT EXISTS " + t.Name + " (\n    " + strings.Join(defs, ",\n    ") + "\n)"
	if e != events.EnginePostgres && !t.RowID {
		// The rows live in the primary key's tree, as every view's does.
		table += " WITHOUT ROWID"
	}
	out := []string{table}
	for _, ix := range t.Indexes {
		out = append(out, ix.createSQL(t.Name, e))
	}
	return out, nil
}

// definition is c as a column of CREATE TABLE or ADD COLUMN on engine e.
func (c Column) definition(e events.Engine) string {
	spelled := columnTypes[c.Type][0]
	if e == events.EnginePostgres {
		spelled = columnTypes[c.Type][1]
	}
	def := c.Name + " " + spelled
	if !c.Null {
		def += " NOT NULL"
	}
	if c.Default != "" {
		def += " DEFAULT " + c.Default
	}
	return def
}

func (ix TableIndex) createSQL(table string, e events.Engine) string {
	s := "CREATE INDEX IF NOT EXISTS " + ix.Name + " ON " + table + " (" + strings.Join(ix.Columns, ", ") + ")"
	if ix.Where != "" {
		s += " WHERE " + ix.where(e)
	}
	return s
}

// ObjectTable describes an object table: keyed by namespace and name,
// with the tombstone flag, version, resourceVersion and data, and, with
// controller, each object's controller as "Kind/name" ("" for none) and
// the index a workload's reconciler reads its own objects through.
func ObjectTable(table string, controller bool) Table {
	t := Table{
		Name: table,
		Columns: []Column{
			{Name: "namespace", Type: TypeKeyText},
			{Name: "name", Type: TypeKeyText},
			{Name: "deleted", Type: TypeFlag, Default: "0"},
			{Name: "version", Type: TypeInt},
			{Name: "resource_version", Type: TypeInt},
			{Name: "data", Type: TypeBytes},
		},
		Key: []string{"namespace", "name"},
	}
	if controller {
		t.Columns = append(t.Columns, Column{Name: "controller", Type: TypeKeyText, Default: "''", Fill: controllerFill(table)})
		t.Indexes = []TableIndex{{Name: table + "_by_controller", Columns: []string{"namespace", "controller"}, Where: "deleted = 0"}}
	}
	return t
}

// controllerFill sets the controller of each row of table an older herd
// wrote from the owners in its JSON: the owner marked controller, as
// "Kind/name", or "" for none.
func controllerFill(table string) Fill {
	return Fill{
		SQLite: `UPDATE ` + table + ` SET controller = COALESCE((
    SELECT json_extract(o.value, '$.kind') || '/' || json_extract(o.value, '$.name')
    FROM json_each(CAST(data AS TEXT), '$.owners') AS o
    WHERE json_extract(o.value, '$.controller') = 1
    LIMIT 1), '')`,
		Postgres: `UPDATE ` + table + ` SET controller = COALESCE((
    SELECT (o->>'kind') || '/' || (o->>'name')
    FROM jsonb_array_elements(COALESCE(convert_from(data, 'UTF8')::jsonb->'owners', '[]'::jsonb)) AS o
    WHERE (o->>'controller')::boolean
    LIMIT 1), '')`,
	}
}
