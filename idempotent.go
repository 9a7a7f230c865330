package echomq

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/echomq/echomq/internal/keyspace"
)

// onceLease is how long a running handler holds its record's marker when
// its context carries no deadline.
const onceLease = defaultMinIdle

// onceDone is the marker value of a record handled successfully.
const onceDone = "done"

// Once wraps h so that each record is handled successfully at most once per
// scope within ttl, across redeliveries, restarts and peers: delivery is at
// least once, and the record's branded id ([Delivery.Key]) is the key that
// turns it into effectively once. The marker lives at
// "emq:{queue}:seen:<scope>:<id>" (queue and scope follow the name grammar;
// use one scope per handler that must not see a record twice).
//
// How it works, one step per engine call:
//
//  1. SET NX the marker to a lease token that expires when the delivery's
//     context does (or after 30s without a deadline). If the marker says
//     "done", the delivery is skipped: the wrapper returns nil and the
//     consumer acknowledges it. If another delivery holds the lease, the
//     wrapper returns [ErrInFlight]: the entry stays pending and comes back
//     after MinIdle, so two deliveries of one record never run h at once.
//  2. Run h. On an error (or a panic) the lease is given back, so the next
//     delivery runs h again.
//  3. On success, set the marker to "done" for ttl; the consumer then
//     acknowledges the entry.
//
// The guarantee: h completes successfully at most once per record and
// scope, except in these windows, where it runs again (the at-least-once
// floor): the process dies after h succeeded and before step 3 reached the
// engine (one round trip); h ignores its context past the lease and a
// redelivery starts meanwhile; a redelivery arrives after ttl. A crash
// inside h leaves its lease to expire, then the record is handled again, so
// h's own effects must tolerate a partial earlier run. For effects that must
// be exactly once, write them and a marker keyed by [Delivery.Key] in one
// transaction of the store they live in.
//
// Errors (before any I/O): [*NameError] for a bad queue or scope;
// [*ArgumentError] for a nil client or handler or a ttl below 1ms. The
// wrapped handler returns h's error, [ErrInFlight], or an engine error.
func Once(c *Client, queue, scope string, ttl time.Duration, h HandlerFunc) (HandlerFunc, error) {
	switch {
	case c == nil:
		return nil, &ArgumentError{Name: "client", Reason: "must not be nil"}
	case h == nil:
		return nil, &ArgumentError{Name: "handler", Reason: "must not be nil"}
	case ttl < time.Millisecond:
		return nil, &ArgumentError{Name: "ttl", Reason: "must be at least 1ms"}
	}
	if err := keyspace.Queue(queue); err != nil {
		return nil, err
	}
	if err := keyspace.Name("scope", scope); err != nil {
		return nil, err
	}
	return func(ctx context.Context, d Delivery) (err error) {
		key := keyspace.SeenKey(queue, scope, d.Key())
		lease := onceLease
		if dl, ok := ctx.Deadline(); ok {
			if lease = time.Until(dl); lease < time.Millisecond {
				return context.DeadlineExceeded
			}
		}
		token := onceToken()
		got, err := c.conn.SetNX(ctx, key, token, lease)
		if err != nil {
			return fmt.Errorf("echomq: once %s: %w", key, err)
		}
		if !got {
			v, found, err := c.conn.Get(ctx, key)
			switch {
			case err != nil:
				return fmt.Errorf("echomq: once %s: %w", key, err)
			case found && v == onceDone:
				return nil
			}
			return fmt.Errorf("%w: %s", ErrInFlight, key)
		}
		// The marker writes below run even when ctx ended: the outcome is
		// known and worth recording.
		bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), settleTimeout)
		defer cancel()
		defer func() {
			if v := recover(); v != nil {
				_, _ = c.conn.DelIf(bg, key, token)
				panic(v)
			}
		}()
		if err := h(ctx, d); err != nil {
			_, _ = c.conn.DelIf(bg, key, token)
			return err
		}
		// A failed "done" write still leaves h's success standing: the
		// entry is acknowledged, and only a later redelivery (should the
		// ack be lost too) would run h again.
		_ = c.conn.SetPX(bg, key, onceDone, ttl)
		return nil
	}, nil
}

func onceToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "run:" + hex.EncodeToString(b[:])
}
