package projections

import (
	"context"

	"herd/projections/viewstore"
)

// rowsPerChunk is how many aggregates one encoder takes at a time when a
// rebuild writes their rows: enough that handing chunks between
// goroutines costs nothing noticeable, few enough that the encoded rows
// waiting for the writer stay a few megabytes.
const rowsPerChunk = 512

// writeRows writes n rows through x: encode(rec, i) records the
// statements of row i (viewstore.Recorded), rowsPerChunk rows at a time on every core, and
// the statements run on x in row order while the next chunks are
// encoded.
func writeRows(ctx context.Context, x execer, n int, encode func(rec execer, i int) error) error {
	type chunk struct {
		stmts *viewstore.Recorded
		err   error
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	chunks := (n + rowsPerChunk - 1) / rowsPerChunk
	for c := range inOrder(ctx, chunks, func(c int) (chunk, bool) {
		out := chunk{stmts: viewstore.NewRecorded(x.Dialect())}
		for i := c * rowsPerChunk; i < min(n, (c+1)*rowsPerChunk); i++ {
			if out.err = encode(out.stmts, i); out.err != nil {
				return out, false
			}
		}
		return out, true
	}) {
		if c.err != nil {
			return c.err
		}
		if err := c.stmts.Replay(ctx, x); err != nil {
			return err
		}
	}
	return ctx.Err()
}
