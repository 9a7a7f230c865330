package codemojex

import (
	"context"
	"fmt"
	"slices"
)

// reads caches the records one transaction attempt read, so a batch reads
// (and watches) each record once, sees its own changes to it, and writes
// each changed record once at the end.
type reads struct {
	t       *txn
	games   map[string]*gameRecord
	members map[string]*member
	wallets map[string]*Wallet
	dirty   []dirtyRec
	marked  map[string]bool
}

type dirtyRec struct {
	table, key string
	val        any
}

func newReads(t *txn) *reads {
	return &reads{t: t, games: map[string]*gameRecord{}, members: map[string]*member{}, wallets: map[string]*Wallet{}, marked: map[string]bool{}}
}

// game returns the game record, nil when there is none.
func (r *reads) game(ctx context.Context, id string) (*gameRecord, error) {
	return cached(ctx, r.t, r.games, tableGames, id)
}

// member returns the member record of player in game, nil when none.
func (r *reads) member(ctx context.Context, game, player string) (*member, error) {
	return cached(ctx, r.t, r.members, tableMembers, memberKey(game, player))
}

// wallet returns the player's wallet, nil when there is no such player.
func (r *reads) wallet(ctx context.Context, player string) (*Wallet, error) {
	return cached(ctx, r.t, r.wallets, tableWallets, player)
}

func cached[T any](ctx context.Context, t *txn, m map[string]*T, table, key string) (*T, error) {
	if v, ok := m[key]; ok {
		return v, nil
	}
	v, ok, err := getJSON[T](ctx, t, table, key)
	if err != nil {
		return nil, err
	}
	var p *T
	if ok {
		p = &v
	}
	m[key] = p
	return p, nil
}

// changed marks a cached record (a pointer from the getters) to be written.
func (r *reads) changed(table, key string, val any) {
	if !r.marked[table+"/"+key] {
		r.marked[table+"/"+key] = true
		r.dirty = append(r.dirty, dirtyRec{table, key, val})
	}
}

// flush buffers the writes of the changed records, in the order first
// changed.
func (r *reads) flush() error {
	for _, d := range r.dirty {
		if err := r.t.put(d.table, d.key, d.val); err != nil {
			return err
		}
	}
	return nil
}

// prefetch reads the records of keys of one table that m does not hold
// yet in one round trip (one MGET), watching them, and caches them in m
// (nil for an absent one): a batch reads its games, members and wallets
// with a command per table instead of one per request.
func prefetch[T any](ctx context.Context, t *txn, m map[string]*T, table string, keys []string) error {
	var todo []string
	seen := map[string]bool{}
	for _, k := range keys {
		if _, ok := m[k]; !ok && !seen[k] {
			seen[k] = true
			todo = append(todo, k)
		}
	}
	if len(todo) == 0 {
		return nil
	}
	return getInto(ctx, t, m, table, todo)
}

// getInto reads keys of one table in one round trip and stores each
// decoded record in m by key, nil for an absent one.
func getInto[T any](ctx context.Context, t *txn, m map[string]*T, table string, keys []string) error {
	vals, ok, err := t.tx.GetMany(ctx, table, keys...)
	if err != nil {
		return err
	}
	for i, k := range keys {
		if !ok[i] {
			m[k] = nil
			continue
		}
		v := new(T)
		if err := unmarshal(vals[i], v); err != nil {
			return fmt.Errorf("%s %s: %w", table, k, err)
		}
		m[k] = v
	}
	return nil
}

// peek reads the records of keys of one table without watching them, 500
// to a round trip (a transaction that only reads commits nothing), and
// returns them by key, nil for an absent one. It is for records that
// never change in a way the caller minds (a member record exists for good
// once its player joined) or that the caller reads again inside its own
// transaction.
func peek[T any](ctx context.Context, e *Engine, table string, keys []string) (map[string]*T, error) {
	out := make(map[string]*T, len(keys))
	for chunk := range slices.Chunk(keys, 500) {
		err := e.update(ctx, func(ctx context.Context, t *txn) error {
			return getInto(ctx, t, out, table, chunk)
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
