package projections

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"herd/domain"
)

// PodView answers queries about pods from the pod view.
type PodView struct {
	db *sql.DB
}

// NewPodView returns a PodView reading db.
func NewPodView(db *sql.DB) *PodView { return &PodView{db: db} }

// Get returns the pod, or domain.ErrNotFound when it does not exist or was
// finalized.
func (v *PodView) Get(ctx context.Context, namespace, name string) (domain.Pod, error) {
	p, err := loadPod(ctx, v.db, namespace, name)
	if err == nil && p.Finalized {
		return domain.Pod{}, fmt.Errorf("pod %q: %w", namespace+"/"+name, domain.ErrNotFound)
	}
	return p, err
}

// GetIncludingFinalized returns the pod even when it was finalized (its
// last state), or domain.ErrNotFound when herd never saw it.
func (v *PodView) GetIncludingFinalized(ctx context.Context, namespace, name string) (domain.Pod, error) {
	return loadPod(ctx, v.db, namespace, name)
}

// PodFilter narrows a pod list. Zero values do not filter.
type PodFilter struct {
	// Namespace keeps the pods of one namespace.
	Namespace string
	// NodeName keeps the pods bound to one node; Unbound keeps the pods
	// bound to none.
	NodeName string
	Unbound  bool
	// Phase keeps the pods in one phase.
	Phase domain.PodPhase
	// Source keeps herd's own pods, or a kubelet's observed ones.
	Source *domain.PodSource
	// Terminating keeps only the pods being deleted.
	Terminating bool
}

// List returns the pods that match f, by namespace and name, and the log
// head at the moment of reading (the list's resourceVersion), both from
// one statement.
func (v *PodView) List(ctx context.Context, f PodFilter) ([]domain.Pod, int64, error) {
	where := []string{"p.finalized = 0"}
	var args []any
	if f.Namespace != "" {
		where, args = append(where, "p.namespace = ?"), append(args, f.Namespace)
	}
	switch {
	case f.Unbound:
		where = append(where, "p.node_name = ''")
	case f.NodeName != "":
		where, args = append(where, "p.node_name = ?"), append(args, f.NodeName)
	}
	if f.Phase != "" {
		where, args = append(where, "p.phase = ?"), append(args, string(f.Phase))
	}
	if f.Source != nil {
		where, args = append(where, "p.source = ?"), append(args, string(*f.Source))
	}
	if f.Terminating {
		where = append(where, "p.terminating = 1")
	}
	q := `SELECT p.data, h.head FROM (SELECT COALESCE(MAX(position), 0) AS head FROM events) h
LEFT JOIN pods p ON ` + strings.Join(where, " AND ") + ` ORDER BY p.namespace, p.name`
	rows, err := v.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("list pods: %w", err)
	}
	defer rows.Close()
	var (
		out  []domain.Pod
		head int64
	)
	for rows.Next() {
		var data []byte
		if err := rows.Scan(&data, &head); err != nil {
			return nil, 0, fmt.Errorf("list pods: %w", err)
		}
		if data == nil {
			continue
		}
		p, err := unmarshalPod(data)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, p)
	}
	return out, head, rows.Err()
}
