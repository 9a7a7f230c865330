package echomq_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// TestStreamBudget: a stream at its budget refuses appends early with a
// *BudgetError matching ErrEngineFull, writing nothing, while other
// streams take appends; a trim (what an archive policy does) below the
// budget lets appends through again.
func TestStreamBudget(t *testing.T) {
	t.Parallel()
	q := echomqtest.Queue(t)
	c := connect(t, echomq.Config{
		URL: echomqtest.Shared(t).URL(), BudgetInterval: 20 * time.Millisecond,
		Budgets: []echomq.StreamBudget{{Queue: q, Stream: "bounded", MaxEntries: 50}, {Queue: q, Stream: "sized", MaxBytes: 64 << 10}},
	})
	s := c.Stream(q, "bounded")
	for i := range 50 {
		_, err := s.Append(ctx, echomq.F("i", itoa(i)), nil)
		require.NoError(t, err)
	}
	var be *echomq.BudgetError
	require.Eventually(t, func() bool {
		_, err := s.Append(ctx, echomq.F("i", "over"), nil)
		return errors.As(err, &be)
	}, time.Minute, 10*time.Millisecond, "the sampler sees the stream at its budget")
	require.ErrorIs(t, be, echomq.ErrEngineFull)
	require.GreaterOrEqual(t, be.Entries, int64(50))
	require.Equal(t, "bounded", be.Budget.Stream)
	n := streamLen(t, s)
	for _, try := range []func() error{
		func() error { _, err := s.Append(ctx, echomq.F("k", "v"), nil); return err },
		func() error { _, err := s.AppendBatch(ctx, []echomq.Fields{echomq.F("k", "v")}, nil); return err },
		func() error { return s.AppendID(ctx, mint(t, c, q, echomq.BrandEvent), echomq.F("k", "v")) },
	} {
		require.ErrorIs(t, try(), echomq.ErrEngineFull)
	}
	require.Equal(t, n, streamLen(t, s), "refused appends wrote nothing")
	_, err := c.Stream(q, "other").Append(ctx, echomq.F("k", "v"), nil)
	require.NoError(t, err, "an unbudgeted stream is not affected")

	_, err = s.Trim(ctx, echomq.MaxLen(10).Exact())
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		_, err := s.Append(ctx, echomq.F("i", "again"), nil)
		return err == nil
	}, time.Minute, 10*time.Millisecond, "below its budget after the trim, the stream takes appends again")

	// A byte budget: MEMORY USAGE of the stream's key.
	sized := c.Stream(q, "sized")
	big := make([]byte, 4<<10)
	require.Eventually(t, func() bool {
		_, err := sized.Append(ctx, echomq.F("blob", string(big)), nil)
		return errors.As(err, &be)
	}, time.Minute, 5*time.Millisecond, "the byte budget binds")
	require.GreaterOrEqual(t, be.Bytes, int64(64<<10))
}

// TestStreamBudgetRefused: bad budgets are typed errors at Connect.
func TestStreamBudgetRefused(t *testing.T) {
	t.Parallel()
	url := echomqtest.Shared(t).URL()
	for _, tc := range []struct {
		name string
		cfg  echomq.Config
		want error
	}{
		{"no bound", echomq.Config{Budgets: []echomq.StreamBudget{{Queue: "q", Stream: "s"}}}, echomq.ErrInvalidArgument},
		{"negative", echomq.Config{Budgets: []echomq.StreamBudget{{Queue: "q", Stream: "s", MaxEntries: -1}}}, echomq.ErrInvalidArgument},
		{"bad queue", echomq.Config{Budgets: []echomq.StreamBudget{{Queue: "a:b", Stream: "s", MaxEntries: 1}}}, echomq.ErrInvalidName},
		{"bad stream", echomq.Config{Budgets: []echomq.StreamBudget{{Queue: "q", Stream: "", MaxEntries: 1}}}, echomq.ErrInvalidName},
		{"twice", echomq.Config{Budgets: []echomq.StreamBudget{{Queue: "q", Stream: "s", MaxEntries: 1}, {Queue: "q", Stream: "s", MaxBytes: 1}}}, echomq.ErrInvalidArgument},
		{"interval", echomq.Config{BudgetInterval: time.Millisecond}, echomq.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.URL = url
			_, err := echomq.Connect(ctx, &tc.cfg)
			require.ErrorIs(t, err, tc.want)
		})
	}
}
