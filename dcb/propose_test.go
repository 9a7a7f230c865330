package dcb_test

import (
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// A tagged event keeps the id its writer minted while that lies above the
// stream's top; a top above it (another writer's id ahead of this one's
// clock) makes the engine choose the id instead, above the top, in one
// call: for a group of one stream and for a group of several.
func TestProposalRefusedEngineChooses(t *testing.T) {
	t.Parallel()
	s, c := setup(t)
	tags := dcb.Tags("k", "v")
	first := mustAppend(t, s, nil, ev("a", tags, "n", "1"))
	require.Equal(t, first[0].ID.EntryID(), first[0].Entry)

	// A top 1.5 s ahead of the clock (within MaxSkew): the writer's
	// proposals lie below it.
	ahead := strconv.FormatInt(time.Now().UnixMilli()+1500, 10) + "-7"
	for _, st := range []string{"a", "b"} {
		_, err := rawcmd.Do(ctx, c, "XADD", c.Stream(s.Queue(), st).Key(), ahead, "id", "EVT0000000000A", "n", "ahead")
		require.NoError(t, err)
	}
	top, err := echomq.ParseEntryID(ahead)
	require.NoError(t, err)
	one := mustAppend(t, s, nil, ev("a", tags, "n", "2"), ev("a", tags, "n", "3"))
	two := mustAppend(t, s, nil, ev("a", tags, "n", "4"), ev("b", tags, "n", "5"))
	for _, got := range [][]dcb.Appended{one, two} {
		for _, a := range got {
			require.Equal(t, 1, a.Entry.Compare(top), "%v above the top %v", a.Entry, top)
			require.Equal(t, a.ID.EntryID(), a.Entry, "the receipt is the entry id's image")
		}
	}
	require.Equal(t, []uint64{2, 3, 4, 5}, []uint64{one[0].Position, one[1].Position, two[0].Position, two[1].Position})
	requireIndexed(t, c, s.Queue())
}

// Writers of several processes' worth (clients with their own node ids)
// append tagged and plain events to one stream at once: every receipt is
// unique, the stream's order is its receipts' order and its positions'
// order, and the index holds exactly the tagged events.
func TestProposalsManyWriters(t *testing.T) {
	t.Parallel()
	url := echomqtest.Shared(t).URL()
	q := echomqtest.Queue(t)
	const writers, each = 4, 60
	var wg sync.WaitGroup
	for w := range writers {
		c := connect(t, url)
		s, err := dcb.New(c, q)
		require.NoError(t, err)
		st := c.Stream(q, "mixed")
		for g := range 8 {
			wg.Go(func() {
				for i := range each {
					tag := dcb.Tags("w", strconv.Itoa(w), "g", strconv.Itoa(g%3))
					var err error
					switch i % 3 {
					case 0:
						_, err = st.Append(ctx, echomq.F("i", strconv.Itoa(i)), &echomq.AppendOpts{Tags: tag})
					case 1:
						_, err = s.Append(ctx, []dcb.Append{ev("mixed", tag, "i", strconv.Itoa(i)), ev("other", tag)}, nil)
					default:
						_, err = st.Append(ctx, echomq.F("i", strconv.Itoa(i)), nil)
					}
					if err != nil {
						t.Error(err)
						return
					}
				}
			})
		}
	}
	echomqtest.Join(t, &wg, 2*time.Minute, "the writers")
	c := connect(t, url)
	evs, err := c.Stream(q, "mixed").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, writers*8*each)
	seen := map[echomq.ID]bool{}
	var lastPos uint64
	for i, e := range evs {
		require.False(t, seen[e.ID], "receipt %v twice", e.ID)
		seen[e.ID] = true
		require.Equal(t, e.ID.EntryID(), e.Entry)
		if i > 0 {
			require.Equal(t, 1, e.Entry.Compare(evs[i-1].Entry))
		}
		if e.Position > 0 {
			require.Greater(t, e.Position, lastPos, "positions follow the stream's order")
			lastPos = e.Position
		}
	}
	other, err := c.Stream(q, "other").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	for _, e := range other {
		require.False(t, seen[e.ID], "receipt %v twice", e.ID)
		seen[e.ID] = true
	}
	pos := make([]uint64, 0, len(evs))
	for _, e := range append(evs, other...) {
		if e.Position > 0 {
			pos = append(pos, e.Position)
		}
	}
	slices.Sort(pos)
	for i, p := range pos {
		require.Equal(t, uint64(i+1), p, "positions 1..n, each once")
	}
	requireIndexed(t, c, q)
}
