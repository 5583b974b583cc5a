package projections

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"herd/domain"
	"herd/events"
	"herd/projections/command"
	"herd/projections/viewstore"
)

// ipPools describes the IP pool: its row in ip_pools (its version, how
// many addresses are in use and where the free ones are), and its
// allocations in ip_allocations beside it, one row per address in use.
// A command reads the pool's row and the rows of the one pod it is
// about, never the pool's other allocations (see ipPoolCommands).
var ipPools = describe(&aggregate[domain.IPPool]{
	of:    domain.IPPoolAggregate,
	fresh: func(cidr string) domain.IPPool { return domain.IPPool{CIDR: cidr} },
	load: func(ctx context.Context, q events.Querier, cidr string) (domain.IPPool, error) {
		return loadIPPool(ctx, q, cidr, "")
	},
	version: func(p domain.IPPool) int64 { return p.Version },
	evolve: func(p domain.IPPool, _ events.Record, ev domain.Event) domain.IPPool {
		// p was loaded by this unit of work (or is a rebuild's own) and
		// nobody else holds it, so it changes in place.
		domain.FoldIPPool(&p, ev)
		return p
	},
	eventRows: func(ctx context.Context, x execer, cidr string, rec events.Record, ev domain.Event) error {
		return storeIPAMChange(ctx, x, cidr, applyIPAM(cidr, rec, ev))
	},
	upsert: func(ctx context.Context, x execer, cidr string, p domain.IPPool, rv int64) error {
		row := viewstore.Pool{CIDR: cidr, Version: p.Version, ResourceVersion: rv, InUse: p.InUse, Free: encodeIPPoolFree(p)}
		if err := addressRows.PutPool(ctx, x, row); err != nil {
			return fmt.Errorf("ipam view %s: %w", cidr, err)
		}
		return nil
	},
	tables: []viewTable{{"ip_pools", "pool"}, {"ip_allocations", "pool, address"}},
})

// updateIPPoolTx is the pool's unit of work: the pool's row and the rows
// of the pod podUID, decided on, appended at the pool's version, folded
// and written, all in tx. What it reads does not grow with the pool.
func updateIPPoolTx(ctx context.Context, w *Writer, tx unitTx, cidr, podUID string, decide func(domain.IPPool) ([]domain.Event, error)) (domain.IPPool, error) {
	p, err := loadIPPool(ctx, tx.Views(), cidr, podUID)
	if err != nil {
		return p, err
	}
	return command.DecideAndWrite(ctx, w.unit, ipPools.on(w), tx, cidr, p, decide)
}

// ipPoolCommands are the IP pools' Executor and BatchExecutor: each
// command decided on its pool's row and its pod's allocations, as
// updateIPPoolTx loads them. The pool's version is the expected version
// of the append, so of two allocators that read the same pool only the
// first commits; the other gets domain.ErrConflict and decides again on
// the pool as it now stands.
type ipPoolCommands struct{ w *Writer }

var (
	_ domain.Executor[domain.IPPool, domain.IPPoolCommand]      = ipPoolCommands{}
	_ domain.BatchExecutor[domain.IPPool, domain.IPPoolCommand] = ipPoolCommands{}
)

// Execute implements domain.Executor; key.Name is the pool's CIDR.
func (c ipPoolCommands) Execute(ctx context.Context, key domain.Key, cmd domain.IPPoolCommand) (domain.IPPool, error) {
	now := c.w.clock.Now()
	var out domain.IPPool
	err := c.w.inTx(ctx, func(tx unitTx) error {
		var err error
		out, err = updateIPPoolTx(ctx, c.w, tx, key.Name, domain.IPPoolCommandPod(cmd), func(p domain.IPPool) ([]domain.Event, error) {
			return domain.DecideIPPool(p, cmd, now)
		})
		return err
	})
	return out, err
}

// ExecuteBatch implements domain.BatchExecutor: every command in one
// transaction, each decided on its pool as the ones before it in the
// batch left it. Each costs a read of its pool's row and of its pod's
// allocations, however many addresses the pool has handed out.
func (c ipPoolCommands) ExecuteBatch(ctx context.Context, cmds []domain.Keyed[domain.IPPoolCommand]) ([]domain.IPPool, []error, error) {
	return command.ExecuteBatch(ctx, c.w.unit, cmds, domain.DecideIPPool,
		func(tx unitTx, k domain.Keyed[domain.IPPoolCommand], decide func(domain.IPPool) ([]domain.Event, error)) (domain.IPPool, error) {
			return updateIPPoolTx(ctx, c.w, tx, k.Key.Name, domain.IPPoolCommandPod(k.Command), decide)
		})
}

// encodeIPPoolFree writes a pool's free addresses as its row keeps them
// (the column free): the pool's version they reflect, "@", Next, then
// each run of free addresses below it as from-to (to not included), by
// offset into the pool, such as "57@120;3-5,9-10". Plain numbers rather
// than JSON: a pool that many pods came and went from can keep thousands
// of runs, and its row is read and written on every allocation. The
// version tells a row whose other columns a herd from before this column
// rewrote (on a PostgreSQL shared with one during an upgrade): its free
// addresses no longer match, and are derived again.
func encodeIPPoolFree(p domain.IPPool) string {
	b := make([]byte, 0, 24+12*len(p.Holes))
	b = strconv.AppendInt(b, p.Version, 10)
	b = append(b, '@')
	b = strconv.AppendInt(b, int64(p.Next), 10)
	for i, h := range p.Holes {
		sep := byte(',')
		if i == 0 {
			sep = ';'
		}
		b = append(b, sep)
		b = strconv.AppendInt(b, int64(h.From), 10)
		b = append(b, '-')
		b = strconv.AppendInt(b, int64(h.To), 10)
	}
	return string(b)
}

// decodeIPPoolFree reads what encodeIPPoolFree wrote into p's Next and
// Holes, and returns the version it was written at; it refuses runs that
// are not ascending, apart and below Next.
func decodeIPPoolFree(s string, p *domain.IPPool) (int64, error) {
	ver, rest, ok := strings.Cut(s, "@")
	v, err := strconv.ParseInt(ver, 10, 64)
	if !ok || err != nil || v < 0 {
		return 0, fmt.Errorf("version %q: want a number before @", ver)
	}
	next, holes, cut := strings.Cut(rest, ";")
	n, err := strconv.Atoi(next)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("next free %q: want a number", next)
	}
	p.Next, p.Holes = n, nil
	if !cut {
		return v, nil
	}
	p.Holes = make([]domain.IPRange, 0, strings.Count(holes, ",")+1)
	last := -1
	for h := range strings.SplitSeq(holes, ",") {
		from, to, _ := strings.Cut(h, "-")
		f, err1 := strconv.Atoi(from)
		t, err2 := strconv.Atoi(to)
		if err1 != nil || err2 != nil || f <= last || t <= f || t >= n {
			return 0, fmt.Errorf("free run %q: want from-to, ascending, apart and below %d", h, n)
		}
		p.Holes = append(p.Holes, domain.IPRange{From: f, To: t})
		last = t
	}
	return v, nil
}

// loadIPPool reads what a command about the pod podUID decides on: the
// pool's row (its version, how many addresses are in use, where the free
// ones are) and that pod's allocations in the pool; none for "". A pool
// that never handed anything out is empty with version 0. A row an older
// herd wrote, without its free addresses or with those of an earlier
// version, gets them derived from its allocations, once: the next write
// keeps them.
func loadIPPool(ctx context.Context, q viewstore.Querier, cidr, podUID string) (domain.IPPool, error) {
	p := domain.IPPool{CIDR: cidr}
	row, err := addressRows.Pool(ctx, q, cidr)
	switch {
	case errors.Is(err, viewstore.ErrNoRow):
		return p, nil
	case err != nil:
		return p, fmt.Errorf("load IP pool %s: %w", cidr, err)
	}
	p.Version, p.InUse = row.Version, row.InUse
	at := int64(-1)
	if row.Free != "" {
		if at, err = decodeIPPoolFree(row.Free, &p); err != nil {
			return p, fmt.Errorf("load IP pool %s: free addresses %q: %w", cidr, row.Free, err)
		}
	}
	if at != p.Version {
		all, err := addressRows.InPool(ctx, q, cidr)
		if err != nil {
			return p, fmt.Errorf("load IP pool %s: %w", cidr, err)
		}
		p = ipPoolFromRows(cidr, p.Version, all)
	}
	p.Allocations = nil
	if podUID == "" {
		return p, nil
	}
	mine, err := addressRows.OfPodIn(ctx, q, cidr, podUID)
	if err != nil {
		return p, fmt.Errorf("load IP pool %s: %w", cidr, err)
	}
	for _, a := range mine {
		if p.Allocations == nil {
			p.Allocations = make(map[string]domain.IPAllocation, len(mine))
		}
		p.Allocations[a.Address] = domainAllocation(a)
	}
	return p, nil
}

// ipPoolFromRows is the pool whose allocation rows are all: its free
// addresses derived from them.
func ipPoolFromRows(cidr string, version int64, all []viewstore.Allocation) domain.IPPool {
	allocs := make([]domain.IPAllocation, len(all))
	for i, a := range all {
		allocs[i] = domainAllocation(a)
	}
	return domain.IPPoolOf(cidr, version, allocs)
}
