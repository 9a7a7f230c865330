package tables

import (
	"context"
	"fmt"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/internal/clientconn"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// UpdateOpts are per-call knobs of [Update]; nil means the defaults.
type UpdateOpts struct {
	// Attempts bounds how many times fn runs when concurrent writes conflict
	// with what it read. Defaults to 64.
	Attempts int
}

// Tx is one attempt of a transaction of [Update]: reads remember what
// they read, writes are buffered and committed together. A Tx is used only
// inside its fn, from one goroutine.
type Tx struct {
	c     *echomq.Client
	queue string
	reads []wire.Read
	seen  map[string]int // record key → index in reads
	ops   []wire.Op
	// floor holds, per stream key, the entry id this attempt's next append
	// must exceed: the top read on a retry, then the attempt's own last id.
	floor map[string]echomq.EntryID
	// retry is set after a conflicting commit: appends then read the stream
	// top first, since another writer may hold ids above the minter.
	retry bool
	// gone holds the record keys this attempt deleted: a Put after them
	// must add the key to its table's index again.
	gone map[string]bool
	// sent holds this attempt's appends for the client's AppendHooks (only
	// when it has some), reported once the commit wrote them.
	sent []txAppend
	// hooks are the client's AppendHooks.
	hooks []echomq.AppendHook
}

// txAppend is an append of a transaction, for the AppendHooks.
type txAppend struct {
	s     *echomq.Stream
	id    echomq.ID
	start time.Time
}

// reportAppends tells the AppendHooks about the appends of a commit that
// wrote them (err nil) or failed with err, when it may have written them;
// a commit that conflicted wrote nothing and is not reported.
func (tx *Tx) reportAppends(ctx context.Context, err error) {
	for _, a := range tx.sent {
		info := echomq.AppendInfo{Queue: a.s.Queue(), Stream: a.s.Name(), Records: 1, ID: a.id, Start: a.start, Duration: time.Since(a.start), Err: err}
		if err != nil {
			info.ID, info.Failed = echomq.ID{}, 1
		}
		for _, h := range tx.hooks {
			h.OnAppend(ctx, info)
		}
	}
}

// Update runs fn as an optimistic transaction on queue of client c. fn reads records with
// [Tx.Get] and [Tx.GetMany] and buffers writes ([Tx.Put], [Tx.Delete],
// [Tx.Append]); the commit is one atomic script on the queue's slot that
// writes everything only if every record read still holds what fn saw and
// every append is still above its stream's top. Otherwise nothing is written
// and fn runs again, so fn must be free of side effects outside tx. When fn
// returns an error nothing is written and Update returns it.
//
// A commit costs one round trip however many records and streams it touches;
// appends to a busy stream conflict only when another writer appended above
// the ids this attempt minted.
//
// Update returns [echomq.ErrConflict] after opts.Attempts conflicting
// commits, an [*echomq.NameError] for a bad queue, and the errors of fn's
// reads and writes. The appends of a commit are reported to the client's
// [echomq.AppendHook]s once the commit wrote them (the AppendPrepareHooks
// do not see them: a transaction's fields go out as fn wrote them).
func Update(ctx context.Context, c *echomq.Client, queue string, fn func(ctx context.Context, tx *Tx) error, opts *UpdateOpts) error {
	if err := keyspace.Queue(queue); err != nil {
		return opError("update", queue, err)
	}
	attempts := 64
	if opts != nil && opts.Attempts > 0 {
		attempts = opts.Attempts
	}
	hooks := echomq.HooksOf[echomq.AppendHook](c)
	for attempt := range attempts {
		tx := &Tx{c: c, queue: queue, seen: map[string]int{}, floor: map[string]echomq.EntryID{}, retry: attempt > 0, hooks: hooks}
		if err := fn(ctx, tx); err != nil {
			return err
		}
		if len(tx.ops) == 0 {
			return nil
		}
		ok, err := clientconn.Of(c).Commit(ctx, tx.reads, tx.ops)
		if err != nil {
			err = opError("update", queue, err)
			tx.reportAppends(ctx, err)
			return err
		}
		if ok {
			tx.reportAppends(ctx, nil)
			return nil
		}
	}
	return opError("update", queue, fmt.Errorf("%w after %d attempts", echomq.ErrConflict, attempts))
}

// Get reads a record. The commit checks that it still holds what was read;
// if another writer changed it meanwhile, the transaction runs again.
func (tx *Tx) Get(ctx context.Context, table, key string) ([]byte, bool, error) {
	vals, ok, err := tx.GetMany(ctx, table, key)
	if err != nil {
		return nil, false, err
	}
	return vals[0], ok[0], nil
}

// GetMany reads several records of one table in one round trip; absent
// records read as nil and false. Each is checked at commit like [Tx.Get].
func (tx *Tx) GetMany(ctx context.Context, table string, keys ...string) ([][]byte, []bool, error) {
	full := make([]string, len(keys))
	for i, k := range keys {
		rk, err := tx.recordKey(table, k)
		if err != nil {
			return nil, nil, err
		}
		full[i] = rk
	}
	if len(full) == 0 {
		return nil, nil, nil
	}
	vals, ok, err := clientconn.Of(tx.c).MGet(ctx, full...)
	if err != nil {
		return nil, nil, opError("tx get", table, err)
	}
	out := make([][]byte, len(keys))
	for i, rk := range full {
		if j, again := tx.seen[rk]; again {
			// A record read twice keeps the first reading: the commit
			// checks that one, and fn sees one consistent value.
			r := tx.reads[j]
			vals[i], ok[i] = r.Value, r.Present
		} else {
			tx.seen[rk] = len(tx.reads)
			tx.reads = append(tx.reads, wire.Read{Key: rk, Present: ok[i], Value: vals[i]})
		}
		if ok[i] {
			out[i] = []byte(vals[i])
		}
	}
	return out, ok, nil
}

// Put buffers writing value at key of table.
func (tx *Tx) Put(table, key string, value []byte) error {
	rk, err := tx.recordKey(table, key)
	if err != nil {
		return err
	}
	if err := clientconn.CheckAppend(tx.c, "", []string{key, string(value)}); err != nil {
		return err // a value the engine would drop the connection over
	}
	tx.ops = append(tx.ops, wire.SetOp(rk, string(value)))
	// A record this attempt read present is in its table's index already
	// (Put and Delete change the record and the index together, and the
	// commit checks the read still holds): updating it needs no SADD.
	if j, read := tx.seen[rk]; !read || !tx.reads[j].Present || tx.gone[rk] {
		tx.ops = append(tx.ops, wire.SAddOp(keyspace.TableIndexKey(tx.queue, table), key))
		delete(tx.gone, rk)
	}
	return nil
}

// Delete buffers deleting the record at key of table.
func (tx *Tx) Delete(table, key string) error {
	rk, err := tx.recordKey(table, key)
	if err != nil {
		return err
	}
	tx.ops = append(tx.ops, wire.DelOp(rk), wire.SRemOp(keyspace.TableIndexKey(tx.queue, table), key))
	if tx.gone == nil {
		tx.gone = map[string]bool{}
	}
	tx.gone[rk] = true
	return nil
}

// Append buffers appending an event to stream and returns its receipt, which
// is final once the transaction commits. The commit checks that the id is
// above the stream's top; if it is not (another writer appended above it),
// the transaction runs again, and then its appends to that stream take ids
// above the top the way the append script chooses them (never running ahead
// of the engine's clock, never moving the minter). The first attempt costs
// no extra round trip.
func (tx *Tx) Append(ctx context.Context, stream string, f echomq.Fields) (echomq.ID, error) {
	return tx.appendTagged(ctx, stream, f, nil)
}

// AppendTagged is [Tx.Append] of a tagged event (package dcb): at the
// commit it gets the queue's next position and enters the queue's tag
// index, in the commit's one script. Tags are "key=value" as for
// echomq.AppendOpts.Tags (at least one); a bad tag is an
// [*echomq.ArgumentError] before any I/O.
func (tx *Tx) AppendTagged(ctx context.Context, stream string, f echomq.Fields, tags []string) (echomq.ID, error) {
	if len(tags) == 0 {
		return echomq.ID{}, opError("tx append", stream, &echomq.ArgumentError{Name: "tags", Reason: "none: a tagged append needs at least one"})
	}
	return tx.appendTagged(ctx, stream, f, tags)
}

func (tx *Tx) appendTagged(ctx context.Context, stream string, f echomq.Fields, tags []string) (echomq.ID, error) {
	canon, joined, err := keyspace.Tags(tags)
	if err != nil {
		return echomq.ID{}, opError("tx append", stream, &echomq.ArgumentError{Name: "tags", Reason: err.Error()})
	}
	s := tx.c.Stream(tx.queue, stream)
	if err := s.Err(); err != nil {
		return echomq.ID{}, opError("tx append", stream, err)
	}
	if err := clientconn.CheckAppend(tx.c, s.Key(), f); err != nil {
		return echomq.ID{}, opError("tx append", s.Key(), err)
	}
	floor, known := tx.floor[s.Key()]
	if tx.retry && !known {
		info, ok, err := clientconn.Of(tx.c).XInfoStream(ctx, s.Key())
		if err != nil {
			return echomq.ID{}, opError("tx append", s.Key(), err)
		}
		if ok {
			if floor, err = echomq.ParseEntryID(info.LastGeneratedID); err != nil {
				return echomq.ID{}, opError("tx append", s.Key(), err)
			}
		}
	}
	minted, err := clientconn.MintAbove(ctx, tx.c, tx.queue, floor)
	if err != nil {
		return echomq.ID{}, opError("tx append", s.Key(), err)
	}
	id := minted.(echomq.ID)
	tx.floor[s.Key()] = id.EntryID()
	if len(canon) > 0 {
		tx.ops = append(tx.ops, wire.XAddTaggedOp(s.Key(), keyspace.DCBPrefix(tx.queue), stream, id.EntryID().String(), id.String(), canon, joined, f))
	} else {
		tx.ops = append(tx.ops, wire.XAddOp(s.Key(), id.EntryID().String(), id.String(), f))
	}
	if len(tx.hooks) > 0 {
		tx.sent = append(tx.sent, txAppend{s: s, id: id, start: time.Now()})
	}
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

// opError wraps err in an [*echomq.OpError], as every verb of the root
// package does; nil stays nil.
func opError(op, key string, err error) error {
	if err == nil {
		return nil
	}
	return &echomq.OpError{Op: op, Key: key, Err: err}
}
