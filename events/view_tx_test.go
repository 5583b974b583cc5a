package events_test

import (
	"reflect"
	"testing"

	"herd/events"
)

// The views' transaction is handed to the command layer, which runs no
// statement of its own: it must not reach the database/sql transaction
// beneath, to commit, roll back or run a statement around the dialect.
func TestAViewTxHandsOutNoDatabaseTransaction(t *testing.T) {
	typ := reflect.TypeOf(events.ViewTx{})
	for i := range typ.NumField() {
		if f := typ.Field(i); f.IsExported() {
			t.Errorf("ViewTx has the exported field %s (%s): a holder reaches the transaction through it", f.Name, f.Type)
		}
	}
	ptr := reflect.TypeOf(&events.ViewTx{})
	for _, m := range []string{"Commit", "Rollback", "StmtContext", "Stmt", "Exec", "Query", "QueryRow", "Prepare"} {
		if _, ok := ptr.MethodByName(m); ok {
			t.Errorf("ViewTx has the method %s of a database/sql transaction", m)
		}
	}
}
