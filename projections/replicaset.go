package projections

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"herd/domain"
	"herd/events"
)

// replicaSets describes the ReplicaSet: its row in replicasets.
var replicaSets = describe(&aggregate[domain.ReplicaSet]{
	of: domain.ReplicaSetAggregate,
	fresh: func(key string) domain.ReplicaSet {
		namespace, name, _ := strings.Cut(key, "/")
		return domain.ReplicaSet{Namespace: namespace, Name: name}
	},
	load: func(ctx context.Context, q events.Querier, key string) (domain.ReplicaSet, error) {
		namespace, name, _ := strings.Cut(key, "/")
		return loadReplicaSet(ctx, q, namespace, name)
	},
	version:  func(rs domain.ReplicaSet) int64 { return rs.Version },
	position: func(rs domain.ReplicaSet) int64 { return rs.ResourceVersion },
	evolve: func(rs domain.ReplicaSet, rec events.Record, ev domain.Event) domain.ReplicaSet {
		rs = domain.EvolveReplicaSet(rs, ev)
		rs.ResourceVersion = rec.Position
		return rs
	},
	upsert: func(ctx context.Context, x execer, _ string, rs domain.ReplicaSet, _ int64) error {
		data, err := json.Marshal(rs)
		if err != nil {
			return fmt.Errorf("encode replicaset %s: %w", rs, err)
		}
		if _, err := x.ExecContext(ctx, upsertReplicaSetSQL, rs.Namespace, rs.Name, rs.Deleted, rs.Version, rs.ResourceVersion, data); err != nil {
			return fmt.Errorf("replicaset view %s: %w", rs, err)
		}
		return nil
	},
	tables: []viewTable{{"replicasets", "namespace, name"}},
})

const upsertReplicaSetSQL = `INSERT INTO replicasets (namespace, name, deleted, version, resource_version, data) VALUES (?, ?, ?, ?, ?, ?)
ON CONFLICT (namespace, name) DO UPDATE SET deleted = excluded.deleted, version = excluded.version,
  resource_version = excluded.resource_version, data = excluded.data`

// unmarshalReplicaSet rebuilds a ReplicaSet from its stored row.
func unmarshalReplicaSet(data []byte) (domain.ReplicaSet, error) {
	var rs domain.ReplicaSet
	if err := json.Unmarshal(data, &rs); err != nil {
		return domain.ReplicaSet{}, fmt.Errorf("decode replicaset row: %w", err)
	}
	return rs, nil
}

// loadReplicaSet reads a ReplicaSet's row, tombstones included, or
// domain.ErrNotFound.
func loadReplicaSet(ctx context.Context, q events.Querier, namespace, name string) (domain.ReplicaSet, error) {
	data, err := rowData(ctx, q, fmt.Sprintf("replicasets.apps %q", name), `SELECT data FROM replicasets WHERE namespace = ? AND name = ?`, namespace, name)
	if err != nil {
		return domain.ReplicaSet{}, err
	}
	return unmarshalReplicaSet(data)
}

// FoldReplicaSet folds one logged event of a ReplicaSet's stream into the
// ReplicaSet, as the inline view does: watches and consistent lists use
// it to rebuild a ReplicaSet as it stood at any log position.
func FoldReplicaSet(rs domain.ReplicaSet, rec events.Record) (domain.ReplicaSet, error) {
	return replicaSets.fold(rs, rec)
}
