package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"herd/adapters/httpapi"
)

// logHeader names the audit log table's columns.
var logHeader = []string{"POSITION", "RECORDED", "STREAM", "VERSION", "TYPE", "ACTOR", "SOURCE"}

// logMinWidths are the columns' least widths: room for what later rows
// of a followed log usually hold (a pod's stream, a long event type), so
// that live rows line up with the header printed with the first page.
var logMinWidths = []int{8, len(time.RFC3339) - 5, 24, 7, 24, 16, 0}

// logTable prints audit events as columns whose widths are fixed by the
// header and the first rows it prints: a page is aligned as a whole, and
// the rows a follow prints later keep to the same columns (a cell wider
// than its column pushes the rest of its row right, as kubectl -w does).
type logTable struct {
	widths []int
}

// print writes items as rows, the header first if none was written yet.
func (t *logTable) print(w io.Writer, items []httpapi.AuditEvent) {
	rows := make([][]string, len(items))
	for i, e := range items {
		rows[i] = []string{fmt.Sprint(e.Position), e.RecordedAt.Format(time.RFC3339), e.Stream, fmt.Sprint(e.Version), e.Type, dash(e.Actor), dash(e.Source)}
	}
	if t.widths == nil {
		t.widths = make([]int, len(logHeader))
		for _, row := range append([][]string{logHeader}, rows...) {
			for i, cell := range row {
				t.widths[i] = max(t.widths[i], len(cell), logMinWidths[i])
			}
		}
		t.row(w, logHeader)
	}
	for _, row := range rows {
		t.row(w, row)
	}
}

// row writes one row, each cell padded to its column and three spaces
// between columns, the last unpadded.
func (t *logTable) row(w io.Writer, cells []string) {
	var b strings.Builder
	for i, cell := range cells {
		b.WriteString(cell)
		if i < len(cells)-1 {
			b.WriteString(strings.Repeat(" ", max(t.widths[i]-len(cell), 0)+3))
		}
	}
	b.WriteByte('\n')
	_, _ = io.WriteString(w, b.String())
}
