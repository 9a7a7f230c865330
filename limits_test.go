package echomq_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/tables"
)

// TestConnectBadConfig: every Config field out of range is refused by
// Connect before any I/O (the URL points nowhere reachable).
func TestConnectBadConfig(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cfg  echomq.Config
	}{
		{"node id", echomq.Config{NodeID: new(1024)}},
		{"negative node id", echomq.Config{NodeID: new(-1)}},
		{"lease ttl low", echomq.Config{NodeLeaseTTL: time.Millisecond}},
		{"lease ttl negative", echomq.Config{NodeLeaseTTL: -time.Second}},
		{"lease ttl high", echomq.Config{NodeLeaseTTL: 2 * time.Hour}},
		{"append retries negative", echomq.Config{AppendRetries: -1}},
		{"append retries high", echomq.Config{AppendRetries: 10001}},
		{"max bulk negative", echomq.Config{MaxBulkBytes: -1}},
		{"max skew negative", echomq.Config{MaxSkew: -time.Second}},
		{"max skew high", echomq.Config{MaxSkew: 2 * time.Hour}},
		{"dedupe window negative", echomq.Config{DedupeWindow: -time.Second}},
		{"dedupe window high", echomq.Config{DedupeWindow: 31 * 24 * time.Hour}},
		{"dial timeout negative", echomq.Config{DialTimeout: -time.Second}},
		{"dial timeout high", echomq.Config{DialTimeout: time.Hour}},
		{"flush delay high", echomq.Config{FlushDelay: time.Second}},
		{"engine check interval low", echomq.Config{EngineCheckInterval: time.Millisecond}},
		{"call timeout high", echomq.Config{CallTimeout: 25 * time.Hour}},
		{"client name space", echomq.Config{ClientName: "a b"}},
		{"client name newline", echomq.Config{ClientName: "a\nb"}},
		{"client name long", echomq.Config{ClientName: strings.Repeat("a", 129)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := tc.cfg
			cfg.URL = "redis://127.0.0.1:1" // never dialled: refused first
			c, err := echomq.Connect(context.Background(), &cfg)
			require.ErrorIs(t, err, echomq.ErrInvalidArgument)
			require.Nil(t, c)
		})
	}
}

// TestTooLarge: a name or value above MaxBulkBytes is refused before any
// I/O by every append verb, nothing written.
func TestTooLarge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL(), MaxBulkBytes: 16})
	q := echomqtest.Queue(t)
	s := c.Stream(q, "big")
	big := strings.Repeat("x", 17)
	for _, tc := range []struct {
		name string
		call func() error
	}{
		{"append value", func() error { _, err := s.Append(ctx, echomq.F("k", big), nil); return err }},
		{"append name", func() error { _, err := s.Append(ctx, echomq.F(big, "v"), nil); return err }},
		{"append id", func() error {
			return s.AppendID(ctx, echomq.MustID(echomq.BrandEvent, echomq.Snowflake(1<<22)), echomq.F("k", big))
		}},
		{"append batch", func() error {
			_, err := s.AppendBatch(ctx, []echomq.Fields{echomq.F("k", "v"), echomq.F("k", big)}, nil)
			return err
		}},
	} {
		err := tc.call()
		require.ErrorIs(t, err, echomq.ErrTooLarge, tc.name)
		var fe *echomq.FieldError
		require.ErrorAs(t, err, &fe, tc.name)
	}
	_, err := s.Append(ctx, echomq.F("k", strings.Repeat("x", 16)), nil)
	require.NoError(t, err, "at the limit is fine")
	info, err := s.Info(ctx)
	require.NoError(t, err)
	require.EqualValues(t, 1, info.Length, "nothing of the refused appends was written")
}

// TestImpossibleBounds: bounds no entry id can satisfy are refused before
// any I/O.
func TestImpossibleBounds(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	closed := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL()})
	require.NoError(t, closed.Close())
	top := echomq.EntryID{Ms: ^uint64(0), Seq: ^uint64(0)}
	for _, r := range []echomq.Range{
		echomq.Span(echomq.Exclusive(top), echomq.Unbounded),
		echomq.Span(echomq.Unbounded, echomq.Exclusive(echomq.EntryID{})),
	} {
		require.ErrorIs(t, r.Validate(), echomq.ErrInvalidRange)
		_, err := closed.Stream("q", "s").Read(ctx, r, nil)
		require.ErrorIs(t, err, echomq.ErrInvalidRange, "refused before the closed check: no I/O")
	}
	require.NoError(t, echomq.Span(echomq.Exclusive(echomq.EntryID{Ms: ^uint64(0)}), echomq.Unbounded).Validate())
}

// TestTxPutTooLarge: a record value above MaxBulkBytes is refused when the
// transaction buffers it, before any I/O.
func TestTxPutTooLarge(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL(), MaxBulkBytes: 16})
	q := echomqtest.Queue(t)
	err := tables.Update(ctx, c, q, func(ctx context.Context, tx *tables.Tx) error {
		return tx.Put("t", "k", []byte(strings.Repeat("x", 17)))
	}, nil)
	require.ErrorIs(t, err, echomq.ErrTooLarge)
	_, ok, err := tables.New(c, q, "t").Get(ctx, "k")
	require.NoError(t, err)
	require.False(t, ok, "nothing written")
}
