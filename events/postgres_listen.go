package events

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

// startListening opens the connection that listens for commits on
// commitChannel and for deletions on compactionChannel: once it returns,
// every commit of any process sharing the database is announced to this
// one's followers, and every deletion moves this one's compaction point.
// It also starts the periodic read of the compaction record.
func (p *Postgres) startListening(ctx context.Context, cfg *pgx.ConnConfig) error {
	conn, err := p.listenConn(ctx, cfg)
	if err != nil {
		return fmt.Errorf("postgres: listen for commits: %w", err)
	}
	listenCtx, stop := context.WithCancel(context.Background())
	p.stopListening = stop
	p.listening.Add(2)
	go p.listen(listenCtx, cfg, conn)
	go p.refreshCompaction(listenCtx)
	return nil
}

func (p *Postgres) listenConn(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if _, err := conn.Exec(ctx, "LISTEN "+commitChannel+"; LISTEN "+compactionChannel); err != nil {
		_ = conn.Close(context.Background())
		return nil, err
	}
	return conn, nil
}

// listen announces the commits and deletions PostgreSQL notifies until
// ctx ends. A lost connection is made again after a backoff; the
// followers' own fallback poll covers the commits announced meanwhile,
// and a read of the compaction record once it is back the deletions.
func (p *Postgres) listen(ctx context.Context, cfg *pgx.ConnConfig, conn *pgx.Conn) {
	defer p.listening.Done()
	backoff := Backoff{Initial: 100 * time.Millisecond, Max: 5 * time.Second}
	for {
		if conn != nil {
			p.announceNotifications(ctx, conn)
			_ = conn.Close(context.Background())
			conn = nil
		}
		if ctx.Err() != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff.Failed()):
		}
		var err error
		if conn, err = p.listenConn(ctx, cfg); err == nil {
			backoff.Succeeded()
			_ = p.loadCompaction(ctx) // else refreshCompaction's next read
		}
	}
}

// announceNotifications announces each notification on conn until it
// fails or ctx ends.
func (p *Postgres) announceNotifications(ctx context.Context, conn *pgx.Conn) {
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return
		}
		switch n.Channel {
		case commitChannel:
			if head, err := strconv.ParseInt(n.Payload, 10, 64); err == nil {
				p.commits.announce(head)
			}
		case compactionChannel:
			if c, ok := parseCompactionPayload(n.Payload); ok {
				p.compaction.learn(c)
			}
		}
	}
}
