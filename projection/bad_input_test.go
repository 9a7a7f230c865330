package projection

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/internal/wire"
)

// queueKeys lists the keys of a queue, to show that bad input wrote nothing.
func queueKeys(t *testing.T, b *testBundle) []any {
	t.Helper()
	conn, err := wire.Dial(b.ctx, wire.Options{URL: b.url})
	require.NoError(t, err)
	defer conn.Close()
	keys, err := conn.Raw(b.ctx, "KEYS", "emq:{"+b.queue+"}:*")
	require.NoError(t, err)
	list, _ := keys.([]any)
	return list
}

// failCodec fails to encode, or to decode.
func failCodec[S any](encode bool) Codec[S] {
	return CodecFunc[S]{
		EncodeFunc: func(S) ([]byte, error) {
			if encode {
				return nil, errors.New("cannot encode")
			}
			return []byte("{}"), nil
		},
		DecodeFunc: func([]byte) (S, error) { var z S; return z, errors.New("cannot decode") },
	}
}

func TestBadInput(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ok := b.stream("ok")
	_, err := ok.Append(b.ctx, echomq.F("room", "r1"), nil)
	require.NoError(t, err)
	store := EngineStore(b.client, b.queue, "p")
	t1 := time.Now()
	inverted := echomq.Span(echomq.Inclusive(echomq.EntryID{Ms: 9}), echomq.Inclusive(echomq.EntryID{Ms: 3}))
	noApply := Projection[int]{Name: "nil-apply"}

	tests := []struct {
		name string
		run  func(ctx context.Context) error
		want error
	}{
		{"inverted window", func(ctx context.Context) error {
			_, err := Fold(ctx, Between(t1, t1.Add(-time.Second)), Count(), ok)
			return err
		}, echomq.ErrInvalidRange},
		{"inverted id range", func(ctx context.Context) error { _, err := Fold(ctx, IDs(inverted), Count(), ok); return err }, echomq.ErrInvalidRange},
		{"last zero", func(ctx context.Context) error { _, err := Fold(ctx, Last(0), Count(), ok); return err }, echomq.ErrInvalidArgument},
		{"last negative", func(ctx context.Context) error { _, err := Fold(ctx, Last(-time.Hour), Count(), ok); return err }, echomq.ErrInvalidArgument},
		{"invalid stream name", func(ctx context.Context) error {
			_, err := Fold(ctx, All, Count(), ok, b.client.Stream(b.queue, "no:colons"))
			return err
		}, echomq.ErrInvalidName},
		{"invalid queue name", func(ctx context.Context) error {
			_, err := Fold(ctx, All, Count(), b.client.Stream("emq", "x"))
			return err
		}, echomq.ErrInvalidName},
		{"nil apply", func(ctx context.Context) error { _, err := Fold(ctx, All, noApply, ok); return err }, echomq.ErrInvalidArgument},
		{"no sources", func(ctx context.Context) error { _, err := Fold(ctx, All, Count()); return err }, echomq.ErrInvalidArgument},
		{"nil source", func(ctx context.Context) error { _, err := Fold(ctx, All, Count(), ok, nil); return err }, echomq.ErrInvalidArgument},
		{"stream twice", func(ctx context.Context) error { _, err := Fold(ctx, All, Count(), ok, b.stream("ok")); return err }, echomq.ErrInvalidArgument},
		{"count by empty", func(ctx context.Context) error { _, err := Fold(ctx, All, CountBy(""), ok); return err }, echomq.ErrInvalidArgument},
		{"sum empty", func(ctx context.Context) error { _, err := Fold(ctx, All, Sum(""), ok); return err }, echomq.ErrInvalidArgument},
		{"bucket zero", func(ctx context.Context) error { _, err := Fold(ctx, All, CountPer(0), ok); return err }, echomq.ErrInvalidArgument},
		{"bucket sub-ms", func(ctx context.Context) error {
			_, err := Fold(ctx, All, CountPer(1500*time.Microsecond), ok)
			return err
		}, echomq.ErrInvalidArgument},
		{"top zero", func(ctx context.Context) error { _, err := Fold(ctx, All, Top("points", 0), ok); return err }, echomq.ErrInvalidArgument},
		{"top by empty", func(ctx context.Context) error { _, err := Fold(ctx, All, TopBy("points", "", 3), ok); return err }, echomq.ErrInvalidArgument},
		{"latest empty", func(ctx context.Context) error { _, err := Fold(ctx, All, Latest(""), ok); return err }, echomq.ErrInvalidArgument},
		{"distinct empty", func(ctx context.Context) error { _, err := Fold(ctx, All, Distinct(""), ok); return err }, echomq.ErrInvalidArgument},
		{"merge page size", func(ctx context.Context) error {
			for _, err := range Merge(ctx, echomq.All, []Source{ok}, &MergeOpts{PageSize: -1}) {
				return err
			}
			return nil
		}, echomq.ErrInvalidArgument},
		{"merge inverted", func(ctx context.Context) error {
			for _, err := range Merge(ctx, inverted, []Source{ok}, nil) {
				return err
			}
			return nil
		}, echomq.ErrInvalidRange},
		{"live nil apply", func(context.Context) error { _, err := NewLive(noApply, &LiveConfig{Store: store}, ok); return err }, echomq.ErrInvalidArgument},
		{"live invalid stream", func(context.Context) error {
			_, err := NewLive(Count(), &LiveConfig{Store: store}, b.client.Stream(b.queue, "bad name"))
			return err
		}, echomq.ErrInvalidName},
		{"live invalid store name", func(context.Context) error {
			_, err := NewLive(Count(), &LiveConfig{Store: EngineStore(b.client, b.queue, "a/b")}, ok)
			return err
		}, echomq.ErrInvalidName},
		{"live negative config", func(context.Context) error { _, err := NewLive(Count(), &LiveConfig{PageSize: -1}, ok); return err }, echomq.ErrInvalidArgument},
		{"live save without store", func(ctx context.Context) error {
			l, err := NewLive(Count(), nil, ok)
			require.NoError(t, err)
			return l.Save(ctx)
		}, echomq.ErrInvalidArgument},
		{"snapshot codec fails", func(ctx context.Context) error {
			p := Count()
			p.Codec = failCodec[*Counts](true)
			l, err := NewLive(p, &LiveConfig{Store: store}, ok)
			require.NoError(t, err)
			_, err = l.CatchUp(ctx) // folds one event, then cannot encode it
			return err
		}, ErrCodec},
		{"cached inverted", func(context.Context) error { _, err := NewCached(Between(t1, t1.Add(-1)), Count(), ok); return err }, echomq.ErrInvalidRange},
		{"cached nil apply", func(context.Context) error { _, err := NewCached(All, noApply, ok); return err }, echomq.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run(b.ctx)
			require.ErrorIs(t, err, tt.want)
			switch {
			case errors.Is(tt.want, echomq.ErrInvalidRange):
				require.ErrorAs(t, err, new(*echomq.RangeError))
			case errors.Is(tt.want, echomq.ErrInvalidArgument):
				require.ErrorAs(t, err, new(*echomq.ArgumentError))
			case errors.Is(tt.want, echomq.ErrInvalidName):
				require.ErrorAs(t, err, new(*echomq.NameError))
			case errors.Is(tt.want, ErrCodec):
				require.ErrorAs(t, err, new(*CodecError))
			}
		})
	}
	// Nothing was written: the queue holds the one stream it had.
	require.Equal(t, []any{ok.Key()}, queueKeys(t, b))
}

// TestSnapshotLoadFailures: a stored value that is not a snapshot, or a
// state the codec cannot decode, is refused with a typed error; nothing is
// loaded or written, and Rebuild replaces it.
func TestSnapshotLoadFailures(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.stream("s")
	_, err := s.Append(b.ctx, echomq.F("room", "r1"), nil)
	require.NoError(t, err)

	store := EngineStore(b.client, b.queue, "garbage")
	require.NoError(t, store.Save(b.ctx, []byte("not a snapshot")))
	l, err := NewLive(Count(), &LiveConfig{Store: store}, s)
	require.NoError(t, err)
	_, err = l.Open(b.ctx)
	require.ErrorIs(t, err, ErrSnapshot)
	require.ErrorAs(t, err, new(*SnapshotError))
	_, err = l.CatchUp(b.ctx)
	require.ErrorIs(t, err, ErrSnapshot)
	v, _, err := store.Load(b.ctx)
	require.NoError(t, err)
	require.Equal(t, "not a snapshot", string(v))
	n, err := l.Rebuild(b.ctx)
	require.NoError(t, err)
	require.Equal(t, 1, n)
	_, err = l.Open(b.ctx)
	require.NoError(t, err)

	// A state its codec cannot decode.
	good, err := NewLive(Count(), &LiveConfig{Store: EngineStore(b.client, b.queue, "undecodable")}, s)
	require.NoError(t, err)
	_, err = good.CatchUp(b.ctx)
	require.NoError(t, err)
	saved, _, err := EngineStore(b.client, b.queue, "undecodable").Load(b.ctx)
	require.NoError(t, err)
	p := Count()
	p.Codec = failCodec[*Counts](false)
	bad, err := NewLive(p, &LiveConfig{Store: EngineStore(b.client, b.queue, "undecodable")}, s)
	require.NoError(t, err)
	_, err = bad.Open(b.ctx)
	require.ErrorIs(t, err, ErrCodec)
	var ce *CodecError
	require.ErrorAs(t, err, &ce)
	require.Equal(t, "decode", ce.Op)
	after, _, err := EngineStore(b.client, b.queue, "undecodable").Load(b.ctx)
	require.NoError(t, err)
	require.Equal(t, saved, after)
}

// TestEngineStoreClosedClient: a store of a closed client answers
// ErrClosed, reading and writing nothing.
func TestEngineStoreClosedClient(t *testing.T) {
	t.Parallel()
	b := setup(t)
	c, err := echomq.Connect(b.ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard})
	require.NoError(t, err)
	store := EngineStore(c, b.queue, "closed")
	require.NoError(t, c.Close())
	_, _, err = store.Load(b.ctx)
	require.ErrorIs(t, err, echomq.ErrClosed)
	require.ErrorIs(t, store.Save(b.ctx, []byte("x")), echomq.ErrClosed)
	_, err = store.Delete(b.ctx)
	require.ErrorIs(t, err, echomq.ErrClosed)
}
