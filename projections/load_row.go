package projections

import (
	"errors"
	"fmt"

	"herd/domain"
	"herd/projections/viewstore"
)

// decodeRow is what a read of one row by key through the views' store
// port gives: the row decoded, or domain.ErrNotFound when there is none,
// named as "resource "name"" (the resource as Kubernetes names it, the
// name as a client gave it), and any other error of the read named so
// too. The name is formatted only on an error: the reads of nodes and
// pods are on every command.
func decodeRow[S any](resource, name string, data []byte, err error, decode func([]byte) (S, error)) (S, error) {
	switch {
	case errors.Is(err, viewstore.ErrNoRow):
		var none S
		return none, fmt.Errorf("%s %q: %w", resource, name, domain.ErrNotFound)
	case err != nil:
		var none S
		return none, fmt.Errorf("load %s %q: %w", resource, name, err)
	}
	return decode(data)
}

// rowsDecoder returns what rebuilds the states of rows a list read
// together with the log's head, as a viewstore read returns them: each
// row decoded by decode, in order, and the head; an error of the read is
// named by what ("node rows").
func rowsDecoder[S any](what string, decode func([]byte) (S, error)) func([][]byte, int64, error) ([]S, int64, error) {
	return func(data [][]byte, head int64, err error) ([]S, int64, error) {
		if err != nil {
			return nil, 0, fmt.Errorf("%s: %w", what, err)
		}
		out := make([]S, 0, len(data))
		for _, b := range data {
			s, err := decode(b)
			if err != nil {
				return nil, 0, err
			}
			out = append(out, s)
		}
		return out, head, nil
	}
}
