// Package tables keeps small records (bytes by key) in named tables of a
// queue, for the state a program keeps beside its streams: rooms, wallets,
// games. Records are read with a [Table] and changed atomically, together
// with stream appends, by [Update].
//
// Each record is the string "emq:{q}:rec:<table>:<key>"; the set
// "emq:{q}:rec:<table>" lists the table's keys (docs/keyspace.md).
package tables

import (
	"context"
	"iter"
	"slices"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
)

// Table is a named set of small records in one queue. Records are read
// here and changed in [Update]. Table and record key names match
// [A-Za-z0-9._-]{1,128}.
type Table struct {
	c     *echomq.Client
	queue string
	name  string
	err   error
}

// New returns the handle of table name in queue of client c; a bad name is
// reported by every method, before any I/O.
func New(c *echomq.Client, queue, name string) *Table {
	t := &Table{c: c, queue: queue, name: name}
	if err := keyspace.Queue(queue); err != nil {
		t.err = err
	} else if err := keyspace.Table(name); err != nil {
		t.err = err
	}
	return t
}

// Name returns the table name.
func (t *Table) Name() string { return t.name }

// Get returns the record at key and true, or false when there is none.
func (t *Table) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if err := t.check(key); err != nil {
		return nil, false, err
	}
	v, ok, err := clientconn.Of(t.c).Get(ctx, keyspace.RecordKeyOf(t.queue, t.name, key))
	if err != nil || !ok {
		return nil, false, opError("table get", t.name, err)
	}
	return []byte(v), true, nil
}

// Keys returns the table's record keys, sorted.
func (t *Table) Keys(ctx context.Context) ([]string, error) {
	if t.err != nil {
		return nil, opError("table keys", t.name, t.err)
	}
	keys, err := clientconn.Of(t.c).SMembers(ctx, keyspace.TableIndexKey(t.queue, t.name))
	if err != nil {
		return nil, opError("table keys", t.name, err)
	}
	slices.Sort(keys)
	return keys, nil
}

// Record is one record of a [Table].
type Record struct {
	Key   string
	Value []byte
}

// All iterates over the table's records in key order, reading them in
// batches of 100. A failure is yielded once and ends the iteration.
func (t *Table) All(ctx context.Context) iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		keys, err := t.Keys(ctx)
		if err != nil {
			yield(Record{}, err)
			return
		}
		for batch := range slices.Chunk(keys, 100) {
			full := make([]string, len(batch))
			for i, k := range batch {
				full[i] = keyspace.RecordKeyOf(t.queue, t.name, k)
			}
			vals, ok, err := clientconn.Of(t.c).MGet(ctx, full...)
			if err != nil {
				yield(Record{}, opError("table all", t.name, err))
				return
			}
			for i, k := range batch {
				if ok[i] && !yield(Record{Key: k, Value: []byte(vals[i])}, nil) {
					return
				}
			}
		}
	}
}

func (t *Table) check(key string) error {
	if t.err != nil {
		return opError("table", t.name, t.err)
	}
	if err := keyspace.RecordKey(key); err != nil {
		return opError("table", t.name, err)
	}
	return nil
}
