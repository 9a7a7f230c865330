package codemojex

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/tables"
)

// txn is one attempt of an engine transaction: record reads that watch
// what they read, buffered writes, and stream appends, committed together.
type txn struct {
	e    *Engine
	tx   *tables.Tx
	held []int // indices in Streams of the stream locks held, ascending
}

// streamIndex is each stream's place in the lock order.
var streamIndex = func() map[string]int {
	m := make(map[string]int, len(Streams))
	for i, s := range Streams {
		m[s] = i
	}
	return m
}()

func (t *txn) release() {
	for _, v := range slices.Backward(t.held) {
		t.e.streamMu[v].Unlock()
	}
	t.held = t.held[:0]
}

// update runs fn as one optimistic transaction on the engine's queue (see
// [tables.Update]): fn must read everything first and append last,
// and must set its results only from the attempt that commits (it runs
// again after a conflict).
func (e *Engine) update(ctx context.Context, fn func(ctx context.Context, t *txn) error) error {
	t := &txn{e: e}
	defer t.release()
	return tables.Update(ctx, e.client, e.queue, func(ctx context.Context, tx *tables.Tx) error {
		t.release() // the previous attempt has ended
		t.tx = tx
		return fn(ctx, t)
	}, &tables.UpdateOpts{Attempts: e.cfg.Attempts})
}

// getJSON reads and decodes the record at key of table, watching it.
func getJSON[T any](ctx context.Context, t *txn, table, key string) (T, bool, error) {
	var v T
	b, ok, err := t.tx.Get(ctx, table, key)
	if err != nil || !ok {
		return v, false, err
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, false, fmt.Errorf("codemojex: decode %s %s: %w", table, key, err)
	}
	return v, true, nil
}

// readJSON reads and decodes a record outside a transaction.
func readJSON[T any](ctx context.Context, e *Engine, table, key string) (T, bool, error) {
	var v T
	b, ok, err := tables.New(e.client, e.queue, table).Get(ctx, key)
	if err != nil || !ok {
		return v, false, err
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, false, fmt.Errorf("codemojex: decode %s %s: %w", table, key, err)
	}
	return v, true, nil
}

func (t *txn) put(table, key string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return t.tx.Put(table, key, b)
}

func (t *txn) del(table, key string) error { return t.tx.Delete(table, key) }

// append buffers an event; the first append to a stream takes the
// stream's lock until the attempt ends. Appends go in the order of
// [Streams]. The event is tagged with what it is about, from its fields
// named game, player and room (see [txTags]), so a query sees it.
func (t *txn) append(ctx context.Context, stream string, kv ...string) (echomq.ID, error) {
	i, ok := streamIndex[stream]
	if !ok {
		return echomq.ID{}, fmt.Errorf("codemojex: append to unknown stream %q", stream)
	}
	if n := len(t.held); n == 0 || t.held[n-1] < i {
		t.e.streamMu[i].Lock()
		t.held = append(t.held, i)
	} else if t.held[n-1] > i {
		return echomq.ID{}, fmt.Errorf("codemojex: append to %s after a later stream in the lock order", stream)
	}
	f := echomq.F(kv...)
	if tags := txTags(f); len(tags) > 0 {
		return t.tx.AppendTagged(ctx, stream, f, tags)
	}
	return t.tx.Append(ctx, stream, f)
}

// txTags returns the tags of an event appended in a transaction: game=,
// player= and room= for those of its fields (the things a decision asks
// about), in that order.
func txTags(f echomq.Fields) []string {
	var tags []string
	for _, k := range []string{TagGame, TagPlayer, TagRoom} {
		if v := f.Value(k); v != "" {
			tags = append(tags, k+"="+v)
		}
	}
	return tags
}

// ledger buffers one ledger row.
func (t *txn) ledger(ctx context.Context, player string, c Currency, delta, balance int64, reason, ref string, extra ...string) error {
	txn, err := t.e.mint(ctx, BrandTxn)
	if err != nil {
		return err
	}
	kv := []string{
		"txn", txn,
		"player", player,
		"currency", string(c),
		"delta", strconv.FormatInt(delta, 10),
		"balance", strconv.FormatInt(balance, 10),
		"reason", reason,
		"ref", ref,
		"at_ms", strconv.FormatInt(t.e.nowMS(), 10),
	}
	_, err = t.append(ctx, StreamLedger, append(kv, extra...)...)
	return err
}

// credit adds delta (either sign) to a wallet read in this transaction and
// books the ledger row; a debit below zero is an [*InsufficientError].
// The caller puts the returned wallet after its other reads.
func credit(w Wallet, c Currency, delta int64) (Wallet, error) {
	if have := w.Of(c); have+delta < 0 {
		return w, &InsufficientError{Currency: c, Need: -delta, Have: have}
	}
	return w.add(c, delta), nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func unmarshal(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("codemojex: decode record: %w", err)
	}
	return nil
}
