package features

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cucumber/godog"
)

// splitList splits "a, b and c" into its items.
func splitList(s string) []string {
	s = strings.ReplaceAll(s, " and ", ", ")
	var out []string
	for item := range strings.SplitSeq(s, ",") {
		if item = strings.Trim(strings.TrimSpace(item), `"`); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// tableRows reads a table with a header row into one map per row, and
// checks that the required columns are there.
func tableRows(t *godog.Table, required ...string) ([]map[string]string, error) {
	if len(t.Rows) == 0 {
		return nil, fmt.Errorf("the table is empty")
	}
	var header []string
	for _, c := range t.Rows[0].Cells {
		header = append(header, c.Value)
	}
	for _, r := range required {
		if !slices.Contains(header, r) {
			return nil, fmt.Errorf("the table needs a %q column, has %v", r, header)
		}
	}
	var out []map[string]string
	for _, row := range t.Rows[1:] {
		m := map[string]string{}
		for i, c := range row.Cells {
			m[header[i]] = c.Value
		}
		out = append(out, m)
	}
	return out, nil
}

// pairs reads a two-column table of names and values, in order.
func pairs(t *godog.Table) ([][2]string, error) {
	var out [][2]string
	for _, row := range t.Rows {
		if len(row.Cells) != 2 {
			return nil, fmt.Errorf("want two columns (what, value), got %d", len(row.Cells))
		}
		out = append(out, [2]string{row.Cells[0].Value, row.Cells[1].Value})
	}
	return out, nil
}
