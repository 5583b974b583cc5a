package projections

import (
	"encoding/json"
	"fmt"

	"herd/domain"
	"herd/events"
)

// applyNode folds one logged node event into the node: the domain's Evolve
// plus what only the log knows, the resourceVersion. The inline view and
// the rebuild both use it, which is what makes their rows equal.
func applyNode(n domain.Node, rec events.Record, ev domain.Event) domain.Node {
	n = domain.EvolveNode(n, ev)
	n.ResourceVersion = rec.Position
	return n
}

// nodeRow is the node view's row for n.
type nodeRow struct {
	name            string
	kind            string
	deleted         bool
	version         int64
	resourceVersion int64
	data            []byte
}

func toNodeRow(n domain.Node) (nodeRow, error) {
	data, err := json.Marshal(n)
	if err != nil {
		return nodeRow{}, fmt.Errorf("encode node %s: %w", n.Name, err)
	}
	return nodeRow{
		name:            n.Name,
		kind:            string(n.Kind),
		deleted:         n.Deleted,
		version:         n.Version,
		resourceVersion: n.ResourceVersion,
		data:            data,
	}, nil
}

// unmarshalNode rebuilds a node from its stored row; it is the only way a
// Node is read back from storage.
func unmarshalNode(data []byte) (domain.Node, error) {
	var n domain.Node
	if err := json.Unmarshal(data, &n); err != nil {
		return domain.Node{}, fmt.Errorf("decode node row: %w", err)
	}
	return n, nil
}

const upsertNodeSQL = `INSERT INTO nodes (name, kind, deleted, version, resource_version, data)
VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (name) DO UPDATE SET kind = excluded.kind, deleted = excluded.deleted,
  version = excluded.version, resource_version = excluded.resource_version, data = excluded.data`

func (r nodeRow) args() []any {
	return []any{r.name, r.kind, r.deleted, r.version, r.resourceVersion, r.data}
}
