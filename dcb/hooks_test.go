package dcb_test

import (
	"context"
	"io"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/echomqtest"
)

// appendRecorder is an AppendHook and AppendPrepareHook that records what
// it sees and adds a field to every prepared record.
type appendRecorder struct {
	mu       sync.Mutex
	appends  []echomq.AppendInfo
	prepared []echomq.AppendPrepare
}

func (r *appendRecorder) PrepareAppend(ctx context.Context, p *echomq.AppendPrepare) context.Context {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prepared = append(r.prepared, echomq.AppendPrepare{Queue: p.Queue, Stream: p.Stream, Records: append([]echomq.Fields(nil), p.Records...)})
	for i, f := range p.Records {
		p.Records[i] = append(append(echomq.Fields(nil), f...), "trace", "t-"+p.Stream)
	}
	return ctx
}

func (r *appendRecorder) OnAppend(_ context.Context, a echomq.AppendInfo) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.appends = append(r.appends, a)
}

func (r *appendRecorder) take() ([]echomq.AppendInfo, []echomq.AppendPrepare) {
	r.mu.Lock()
	defer r.mu.Unlock()
	a, p := r.appends, r.prepared
	r.appends, r.prepared = nil, nil
	return a, p
}

// Store.Append runs the client's append hooks as Stream.Append does: the
// prepare hooks see each stream's events before they go (and what they add
// is written), and every event is reported with its receipt, or with the
// call's error when it failed (a conflict included).
func TestStoreAppendHooks(t *testing.T) {
	t.Parallel()
	rec := &appendRecorder{}
	c, err := echomq.Connect(ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard, Hooks: []echomq.Hook{rec}})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	s, err := dcb.New(c, echomqtest.Queue(t))
	require.NoError(t, err)
	game := dcb.Tags("game", "G1")

	f := echomq.F("k", "v")
	got := mustAppend(t, s, nil,
		dcb.Append{Stream: "opened", Tags: game, Fields: f},
		dcb.Append{Stream: "joined", Tags: game, Fields: f},
		dcb.Append{Stream: "opened", Tags: game, Fields: f})
	require.Equal(t, echomq.F("k", "v"), f, "the caller's fields are untouched")
	appends, prepared := rec.take()
	require.Len(t, prepared, 2, "once per stream")
	require.Equal(t, "opened", prepared[0].Stream)
	require.Len(t, prepared[0].Records, 2)
	require.Equal(t, "joined", prepared[1].Stream)
	require.Len(t, prepared[1].Records, 1)
	require.Len(t, appends, 3)
	for i, a := range appends {
		require.Equal(t, s.Queue(), a.Queue)
		require.Equal(t, got[i].Stream, a.Stream)
		require.Equal(t, got[i].ID, a.ID)
		require.Equal(t, 1, a.Records)
		require.Zero(t, a.Failed)
		require.NoError(t, a.Err)
	}
	evs, _, err := s.ReadAll(ctx, dcb.Query{{Tags: game}}, 0)
	require.NoError(t, err)
	require.Len(t, evs, 3)
	for _, e := range evs {
		require.Equal(t, echomq.F("k", "v", "trace", "t-"+e.Stream), e.Fields)
	}

	// A conflict is reported as a failed append of each event.
	_, err = s.Append(ctx, []dcb.Append{{Stream: "joined", Tags: game, Fields: f}}, &dcb.Condition{Query: dcb.Query{{Tags: game}}})
	require.ErrorIs(t, err, echomq.ErrConflict)
	appends, _ = rec.take()
	require.Len(t, appends, 1)
	require.Equal(t, 1, appends[0].Failed)
	require.True(t, appends[0].ID.IsZero())
	var ce *dcb.ConflictError
	require.ErrorAs(t, appends[0].Err, &ce)

	// Bad input is refused before the prepare hooks run, and reported.
	_, err = s.Append(ctx, []dcb.Append{{Stream: "joined", Fields: f}}, nil)
	require.Error(t, err)
	appends, prepared = rec.take()
	require.Empty(t, prepared)
	require.Len(t, appends, 1)
	require.Equal(t, 1, appends[0].Failed)
}
