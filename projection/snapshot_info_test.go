package projection

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

// TestSnapshotInfo: the header of a saved live projection is read back
// without its state type; absent is an answer; a value in another format
// is a *SnapshotError.
func TestSnapshotInfo(t *testing.T) {
	t.Parallel()
	b := setup(t)
	s := b.stream("a")
	appendN(t, b.ctx, 5, s)
	store := EngineStore(b.client, b.queue, "counts")

	_, ok, err := store.Info(b.ctx)
	require.NoError(t, err)
	require.False(t, ok, "nothing saved yet")

	l, err := NewLive(CountBy("room"), &LiveConfig{Store: store}, s)
	require.NoError(t, err)
	_, err = l.CatchUp(b.ctx)
	require.NoError(t, err)
	require.NoError(t, l.Save(b.ctx))

	info, ok, err := store.Info(b.ctx)
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, int64(5), info.Applied)
	require.Equal(t, l.Checkpoint(), info.Checkpoint)
	top, err := s.Read(b.ctx, echomq.All, &echomq.ReadOpts{Count: 1, Reverse: true})
	require.NoError(t, err)
	last, found := info.Checkpoint.Get(s.Key())
	require.True(t, found)
	require.Equal(t, top[0].ID.EntryID(), last)
	require.Positive(t, info.StateBytes)

	require.NoError(t, store.Save(b.ctx, []byte("not a snapshot")))
	_, ok, err = store.Info(b.ctx)
	require.False(t, ok)
	var se *SnapshotError
	require.ErrorAs(t, err, &se, "%v", err)
	require.ErrorIs(t, err, ErrSnapshot)

	_, _, err = EngineStore(b.client, b.queue, "a:b").Info(b.ctx)
	require.ErrorIs(t, err, echomq.ErrInvalidName)
}

func TestParseSnapshotInfo(t *testing.T) {
	t.Parallel()
	e, err := echomq.ParseEntryID("1704117200000-7")
	require.NoError(t, err)
	good := encodeSnapshot("p", 3, 9, Checkpoint{{Stream: "emq:{q}:stream:a", Last: e}}, []byte("{}"))
	for _, tc := range []struct {
		name    string
		in      []byte
		want    SnapshotInfo
		wantErr bool
	}{
		{name: "good", in: good, want: SnapshotInfo{
			Name: "p", Version: 3, Applied: 9,
			Checkpoint: Checkpoint{{Stream: "emq:{q}:stream:a", Last: e}}, StateBytes: 2,
		}},
		{name: "no header", in: []byte("{}"), wantErr: true},
		{name: "bad json", in: []byte("{x\n{}"), wantErr: true},
		{name: "other format", in: []byte(`{"format":9}` + "\n"), wantErr: true},
		{name: "bad position", in: []byte(`{"format":1,"checkpoint":[{"stream":"s","last":"x"}]}` + "\n"), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseSnapshotInfo("k", tc.in)
			if tc.wantErr {
				require.ErrorIs(t, err, ErrSnapshot)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
