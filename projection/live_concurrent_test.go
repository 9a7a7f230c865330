package projection

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// seen records, per stream key, every entry id folded in order.
func seen() Projection[map[string][]string] {
	return Projection[map[string][]string]{
		Name:    "seen",
		Version: 1,
		Init:    func() map[string][]string { return map[string][]string{} },
		Apply: func(s map[string][]string, ev Event) map[string][]string {
			s[ev.Stream] = append(s[ev.Stream], ev.Entry.String())
			return s
		},
	}
}

// TestLiveCheckpointUnderConcurrentWriters runs a live projection while
// four writers with different node ids append to two streams at once, and
// checks every snapshot taken meanwhile: for each stream, the state holds
// exactly the stream's entries up to the checkpoint, in order, each once,
// so the checkpoint never passed an entry that was not folded.
func TestLiveCheckpointUnderConcurrentWriters(t *testing.T) {
	t.Parallel()
	b := setup(t)
	names := []string{"x", "y"}
	store := &memStore{}
	streams := []Source{b.stream(names[0]), b.stream(names[1])}
	l, err := NewLive(seen(), &LiveConfig{Store: store, SnapshotEvery: 20, PageSize: 16}, streams...)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(b.ctx)
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()

	const writers, each = 4, 150
	var wg sync.WaitGroup
	for w := range writers {
		c := connect(t, b.url, 10+w)
		wg.Go(func() {
			for i := range each {
				s := c.Stream(b.queue, names[(i+w)%2])
				_, err := s.Append(b.ctx, echomq.F("w", strconv.Itoa(w), "i", strconv.Itoa(i)), nil)
				if err != nil {
					t.Error(err) // not require: this is not the test goroutine
					return
				}
			}
		})
		switch w {
		case 1: // a catch-up racing the follower must not fold twice
			wg.Go(func() {
				_, err := l.CatchUp(b.ctx)
				if err != nil {
					t.Error(err) // not require: this is not the test goroutine
					return
				}
			})
		case 2: // nor a rebuild swapping the state under it
			wg.Go(func() {
				_, err := l.Rebuild(b.ctx)
				if err != nil {
					t.Error(err) // not require: this is not the test goroutine
					return
				}
			})
		}
	}
	echomqtest.Join(t, &wg, 2*time.Minute, "the concurrent rebuilds")

	full := map[string][]echomq.EntryID{}
	total := 0
	for _, n := range names {
		for _, ev := range readAll(t, b.ctx, b.stream(n)) {
			full[n] = append(full[n], ev.Entry)
		}
		total += len(full[n])
	}
	require.Equal(t, writers*each, total)
	n, err := l.CatchUp(b.ctx) // whatever the follower has not delivered yet
	require.NoError(t, err)
	require.LessOrEqual(t, n, total)
	cancel()
	require.NoError(t, echomqtest.Recv(t, done, 30*time.Second, "the live projection to stop"))

	saves := store.all()
	t.Logf("snapshots %d, final catch-up %d", len(saves), n)
	require.NotEmpty(t, saves)
	for _, snap := range saves {
		_, cp, data, err := decodeSnapshot("mem", snap)
		require.NoError(t, err)
		state, err := seen().decode(data)
		require.NoError(t, err)
		for i, name := range names {
			var want []string
			for _, e := range full[name] {
				if e.Compare(cp[i].Last) <= 0 {
					want = append(want, e.String())
				}
			}
			require.Equal(t, want, state[name], "stream %s up to %s", name, cp[i].Last)
		}
	}
	got, _, err := l.State(b.ctx)
	require.NoError(t, err)
	for _, name := range names {
		require.Len(t, got[name], len(full[name]))
	}
	require.Equal(t, int64(total), l.Applied())
}
