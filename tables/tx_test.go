package tables_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
	"github.com/echomq/echomq/tables"
)

func TestUpdateServer(t *testing.T) {
	t.Parallel()
	runUpdate(t, serverTarget)
}

func TestUpdateEmbedded(t *testing.T) {
	t.Parallel()
	runUpdate(t, embeddedTarget)
}

func runUpdate(t *testing.T, open target) {
	for name, test := range map[string]func(*testing.T, *echomq.Client, string){
		"Transfers":          testTransfers,
		"ErrorWritesNothing": testTxErrorWritesNothing,
		"AppendsInterleave":  testTxAppendsInterleave,
		"BadInput":           testTxBadInput,
		"Table":              testTable,
		"WrongTypeStream":    testTxWrongTypeStream,
		"ManyReads":          testTxManyReads,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, open(t), echomqtest.Queue(t))
		})
	}
}

// testTxWrongTypeStream: a transaction appending to a stream whose key
// holds another type fails with ErrWrongType at commit and writes nothing,
// not even its records; a first append to a stream that does not exist yet
// commits.
func testTxWrongTypeStream(t *testing.T, c *echomq.Client, q string) {
	ctx := context.Background()
	bad := c.Stream(q, "not-a-stream")
	_, err := rawcmd.Do(ctx, c, "SET", bad.Key(), "a string")
	require.NoError(t, err)
	err = tables.Update(ctx, c, q, func(ctx context.Context, tx *tables.Tx) error {
		if err := tx.Put("wallets", "ann", []byte("5")); err != nil {
			return err
		}
		_, err := tx.Append(ctx, "not-a-stream", echomq.F("k", "v"))
		return err
	}, nil)
	require.ErrorIs(t, err, echomq.ErrWrongType)
	_, found, err := tables.New(c, q, "wallets").Get(ctx, "ann")
	require.NoError(t, err)
	require.False(t, found, "nothing written")

	var receipt echomq.ID
	require.NoError(t, tables.Update(ctx, c, q, func(ctx context.Context, tx *tables.Tx) error {
		var err error
		receipt, err = tx.Append(ctx, "fresh", echomq.F("k", "v"))
		return err
	}, nil))
	evs, err := c.Stream(q, "fresh").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 1)
	require.Equal(t, receipt, evs[0].ID)
}

// testTxManyReads: the commit checks every read, past the first chunk of
// its check too: a record read 1100th of 1200 and changed by another writer
// before the commit makes the transaction run again.
func testTxManyReads(t *testing.T, c *echomq.Client, q string) {
	ctx := context.Background()
	keys := make([]string, 1200)
	for i := range keys {
		keys[i] = "k" + strconv.Itoa(i)
	}
	runs := 0
	require.NoError(t, tables.Update(ctx, c, q, func(ctx context.Context, tx *tables.Tx) error {
		runs++
		if _, _, err := tx.GetMany(ctx, "many", keys...); err != nil {
			return err
		}
		if runs == 1 {
			// Another writer creates a record this run read as absent.
			if err := tables.Update(ctx, c, q, func(_ context.Context, other *tables.Tx) error {
				return other.Put("many", keys[1100], []byte("theirs"))
			}, nil); err != nil {
				return err
			}
		}
		return tx.Put("many", "done", []byte(strconv.Itoa(runs)))
	}, nil))
	require.Equal(t, 2, runs, "the changed read made the transaction run again")
	v, found, err := tables.New(c, q, "many").Get(ctx, "done")
	require.NoError(t, err)
	require.True(t, found)
	require.Equal(t, "2", string(v))
}

var errInsufficient = errors.New("insufficient balance")

// transfer moves amount between wallets and records a ledger row, refusing
// to take a balance below zero.
func transfer(ctx context.Context, c *echomq.Client, q, from, to string, amount int) (echomq.ID, error) {
	var receipt echomq.ID
	err := tables.Update(ctx, c, q, func(ctx context.Context, tx *tables.Tx) error {
		bal := func(who string) (int, error) {
			raw, _, err := tx.Get(ctx, "wallets", who)
			if err != nil || raw == nil {
				return 0, err
			}
			return strconv.Atoi(string(raw))
		}
		fb, err := bal(from)
		if err != nil {
			return err
		}
		if fb < amount {
			return errInsufficient
		}
		tb, err := bal(to)
		if err != nil {
			return err
		}
		if err := tx.Put("wallets", from, []byte(strconv.Itoa(fb-amount))); err != nil {
			return err
		}
		if err := tx.Put("wallets", to, []byte(strconv.Itoa(tb+amount))); err != nil {
			return err
		}
		receipt, err = tx.Append(ctx, "ledger", echomq.F("from", from, "to", to, "amount", strconv.Itoa(amount)))
		return err
	}, &tables.UpdateOpts{Attempts: 1000})
	return receipt, err
}

func testTransfers(t *testing.T, c *echomq.Client, q string) {
	const wallets, start, workers, each = 5, 100, 8, 40
	for i := range wallets {
		require.NoError(t, tables.Update(ctx, c, q, func(ctx context.Context, tx *tables.Tx) error {
			return tx.Put("wallets", fmt.Sprint("w", i), []byte(strconv.Itoa(start)))
		}, nil))
	}
	var mu sync.Mutex
	var receipts []echomq.ID
	refused := 0
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 9))
			for range each {
				from, to := r.IntN(wallets), r.IntN(wallets)
				if from == to {
					continue
				}
				id, err := transfer(ctx, c, q, fmt.Sprint("w", from), fmt.Sprint("w", to), 1+r.IntN(60))
				mu.Lock()
				switch {
				case errors.Is(err, errInsufficient):
					refused++
				case err != nil:
					t.Error(err)
				default:
					receipts = append(receipts, id)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	total := 0
	for rec, err := range tables.New(c, q, "wallets").All(ctx) {
		require.NoError(t, err)
		n, err := strconv.Atoi(string(rec.Value))
		require.NoError(t, err)
		require.GreaterOrEqual(t, n, 0, "wallet %s went negative", rec.Key)
		total += n
	}
	require.Equal(t, wallets*start, total, "money is conserved")
	ledger, err := c.Stream(q, "ledger").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	slices.SortFunc(receipts, echomq.ID.Compare)
	require.Equal(t, receipts, ids(ledger), "one ledger row per committed transfer, none for aborted attempts")
	t.Logf("%d transfers committed, %d refused", len(receipts), refused)
}

func testTxErrorWritesNothing(t *testing.T, c *echomq.Client, q string) {
	boom := errors.New("boom")
	err := tables.Update(ctx, c, q, func(ctx context.Context, tx *tables.Tx) error {
		require.NoError(t, tx.Put("t", "k", []byte("v")))
		_, err := tx.Append(ctx, "s", echomq.F("a", "b"))
		require.NoError(t, err)
		return boom
	}, nil)
	require.ErrorIs(t, err, boom)
	keys, err := rawcmd.Do(ctx, c, "KEYS", "emq:{"+q+"}:*")
	require.NoError(t, err)
	// The node id the append minted under is leased in the queue (the
	// client's own key, not the transaction's); nothing else is there.
	var data []any
	for _, k := range keys.([]any) {
		if !strings.Contains(k.(string), "}:node:") {
			data = append(data, k)
		}
	}
	require.Empty(t, data)
}

func testTxAppendsInterleave(t *testing.T, c *echomq.Client, q string) {
	s := c.Stream(q, "mixed")
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 25 {
				if g%2 == 0 {
					_, err := s.Append(ctx, echomq.F("plain", strconv.Itoa(i)), nil)
					require.NoError(t, err)
					continue
				}
				require.NoError(t, tables.Update(ctx, c, q, func(ctx context.Context, tx *tables.Tx) error {
					_, err := tx.Append(ctx, "mixed", echomq.F("tx", strconv.Itoa(i)))
					return err
				}, &tables.UpdateOpts{Attempts: 1000}))
			}
		})
	}
	wg.Wait()
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 100)
	require.True(t, slices.IsSortedFunc(ids(evs), echomq.ID.Compare))
}

func testTxBadInput(t *testing.T, c *echomq.Client, q string) {
	for _, tc := range []struct {
		name string
		fn   func(ctx context.Context, tx *tables.Tx) error
		want error
	}{
		{"bad table", func(ctx context.Context, tx *tables.Tx) error { return tx.Put("a:b", "k", nil) }, echomq.ErrInvalidName},
		{"bad key", func(ctx context.Context, tx *tables.Tx) error { _, _, err := tx.Get(ctx, "t", "k{x}"); return err }, echomq.ErrInvalidName},
		{"empty key", func(ctx context.Context, tx *tables.Tx) error { return tx.Delete("t", "") }, echomq.ErrInvalidName},
		{"bad stream", func(ctx context.Context, tx *tables.Tx) error {
			_, err := tx.Append(ctx, "s:archived", nil)
			return err
		}, echomq.ErrInvalidName},
		{"reserved field", func(ctx context.Context, tx *tables.Tx) error {
			_, err := tx.Append(ctx, "s", echomq.F("id", "1"))
			return err
		}, echomq.ErrReservedField},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.ErrorIs(t, tables.Update(ctx, c, q, tc.fn, nil), tc.want)
		})
	}
	require.ErrorIs(t, tables.Update(ctx, c, "emq", func(context.Context, *tables.Tx) error { return nil }, nil), echomq.ErrInvalidName)
	_, _, err := tables.New(c, q, "bad name").Get(ctx, "k")
	require.ErrorIs(t, err, echomq.ErrInvalidName)
	keys, err := rawcmd.Do(ctx, c, "KEYS", "emq:{"+q+"}:*")
	require.NoError(t, err)
	require.Empty(t, keys, "nothing was written")
}

func testTable(t *testing.T, c *echomq.Client, q string) {
	tb := tables.New(c, q, "rooms")
	_, ok, err := tb.Get(ctx, "ROM1")
	require.NoError(t, err)
	require.False(t, ok)
	require.NoError(t, tables.Update(ctx, c, q, func(ctx context.Context, tx *tables.Tx) error {
		for i := range 150 {
			if err := tx.Put("rooms", fmt.Sprintf("ROM%03d", i), []byte(fmt.Sprint("room ", i))); err != nil {
				return err
			}
		}
		return nil
	}, nil))
	v, ok, err := tb.Get(ctx, "ROM007")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, "room 7", string(v))
	require.NoError(t, tables.Update(ctx, c, q, func(ctx context.Context, tx *tables.Tx) error { return tx.Delete("rooms", "ROM007") }, nil))
	keys, err := tb.Keys(ctx)
	require.NoError(t, err)
	require.Len(t, keys, 149)
	require.NotContains(t, keys, "ROM007")
	n := 0
	for rec, err := range tb.All(ctx) {
		require.NoError(t, err)
		require.Equal(t, "room "+strconv.Itoa(mustAtoi(t, rec.Key[3:])), string(rec.Value))
		n++
	}
	require.Equal(t, 149, n)
}

func mustAtoi(t *testing.T, s string) int {
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}
