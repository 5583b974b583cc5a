package projections

import (
	"context"
	"fmt"
	"strings"

	"herd/domain"
)

// NamesOfKinds returns the names of the nodes of the given kinds, registered
// and not deleted, in name order. It reads the kind column only.
func (v *NodeView) NamesOfKinds(ctx context.Context, kinds []domain.NodeKind) ([]string, error) {
	if len(kinds) == 0 {
		return nil, nil
	}
	args := make([]any, len(kinds))
	for i, k := range kinds {
		args[i] = string(k)
	}
	rows, err := v.db.QueryContext(ctx, `SELECT name FROM nodes WHERE deleted = 0 AND kind IN (?`+
		strings.Repeat(",?", len(kinds)-1)+`) ORDER BY name`, args...)
	if err != nil {
		return nil, fmt.Errorf("node names by kind: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return nil, fmt.Errorf("node names by kind: %w", err)
		}
		out = append(out, name)
	}
	return out, rows.Err()
}
