package echomq

import (
	"context"
	"errors"
	"fmt"

	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// ErrConflict: a transaction kept meeting concurrent writes to what it read
// and gave up after its attempts.
var ErrConflict = errors.New("echomq: transaction conflict")

// UpdateOpts are per-call knobs of [Client.Update]; nil means the defaults.
type UpdateOpts struct {
	// Attempts bounds how many times fn runs when concurrent writes abort
	// the commit. Defaults to 64.
	Attempts int
}

// Tx is one attempt of a transaction of [Client.Update]: reads watch what
// they read, writes are buffered and committed together. A Tx is used only
// inside its fn, from one goroutine.
type Tx struct {
	c     *Client
	queue string
	wt    *wire.Tx
	ops   []wire.Op
	// toppped streams: the stream keys this attempt already watched and
	// moved the minter past.
	topped map[string]bool
}

// Update runs fn as an optimistic transaction on queue: every record fn reads
// with [Tx.Get] and every stream it appends to with [Tx.Append] is watched,
// and fn's writes commit together only if none of them changed meanwhile;
// otherwise fn runs again (it must be free of side effects outside tx). When
// fn returns an error nothing is written and Update returns it.
//
// Update returns [ErrConflict] after opts.Attempts aborted commits, a
// [*NameError] for a bad queue, and the errors of fn's reads and writes.
func (c *Client) Update(ctx context.Context, queue string, fn func(ctx context.Context, tx *Tx) error, opts *UpdateOpts) error {
	if err := keyspace.Queue(queue); err != nil {
		return opError("update", queue, err)
	}
	attempts := 64
	if opts != nil && opts.Attempts > 0 {
		attempts = opts.Attempts
	}
	for range attempts {
		err := c.conn.Dedicated(func(wt *wire.Tx) error {
			tx := &Tx{c: c, queue: queue, wt: wt, topped: map[string]bool{}}
			if err := fn(ctx, tx); err != nil {
				return err
			}
			if len(tx.ops) == 0 {
				return nil
			}
			return wt.Exec(ctx, tx.ops)
		})
		if !errors.Is(err, wire.ErrTxAborted) {
			return err
		}
	}
	return opError("update", queue, fmt.Errorf("%w after %d attempts", ErrConflict, attempts))
}

// Get reads a record and watches it: if another writer changes it before
// this transaction commits, the transaction runs again.
func (tx *Tx) Get(ctx context.Context, table, key string) ([]byte, bool, error) {
	rk, err := tx.recordKey(table, key)
	if err != nil {
		return nil, false, err
	}
	if err := tx.wt.Watch(ctx, rk); err != nil {
		return nil, false, opError("tx get", rk, err)
	}
	v, ok, err := tx.wt.Get(ctx, rk)
	if err != nil || !ok {
		return nil, false, opError("tx get", rk, err)
	}
	return []byte(v), true, nil
}

// Put buffers writing value at key of table.
func (tx *Tx) Put(table, key string, value []byte) error {
	rk, err := tx.recordKey(table, key)
	if err != nil {
		return err
	}
	tx.ops = append(tx.ops, wire.SetOp(rk, string(value)), wire.SAddOp(keyspace.TableIndexKey(tx.queue, table), key))
	return nil
}

// Delete buffers deleting the record at key of table.
func (tx *Tx) Delete(table, key string) error {
	rk, err := tx.recordKey(table, key)
	if err != nil {
		return err
	}
	tx.ops = append(tx.ops, wire.DelOp(rk), wire.SRemOp(keyspace.TableIndexKey(tx.queue, table), key))
	return nil
}

// Append buffers appending an event to stream and returns its receipt, which
// is final once the transaction commits. The stream is watched and the
// minter moved past its top first, so the append cannot be refused at
// commit: another writer's append makes the transaction run again instead.
func (tx *Tx) Append(ctx context.Context, stream string, f Fields) (ID, error) {
	s := tx.c.Stream(tx.queue, stream)
	if s.err != nil {
		return ID{}, opError("tx append", stream, s.err)
	}
	if err := f.Validate(); err != nil {
		return ID{}, opError("tx append", s.key, err)
	}
	if !tx.topped[s.key] {
		if err := tx.wt.Watch(ctx, s.key); err != nil {
			return ID{}, opError("tx append", s.key, err)
		}
		top, err := tx.wt.LastGeneratedID(ctx, s.key)
		if err != nil {
			return ID{}, opError("tx append", s.key, err)
		}
		if top != "" {
			if err := tx.c.advancePast(top); err != nil {
				return ID{}, opError("tx append", s.key, err)
			}
		}
		tx.topped[s.key] = true
	}
	id := tx.c.minter.NextID(BrandEvent)
	tx.ops = append(tx.ops, wire.XAddOp(s.key, id.EntryID().String(), entryPairs(id, f)))
	return id, nil
}

func (tx *Tx) recordKey(table, key string) (string, error) {
	if err := keyspace.Table(table); err != nil {
		return "", opError("tx", table, err)
	}
	if err := keyspace.RecordKey(key); err != nil {
		return "", opError("tx", table, err)
	}
	return keyspace.RecordKeyOf(tx.queue, table, key), nil
}
