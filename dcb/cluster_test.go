package dcb_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/internal/wire"
)

// TestKeysShareSlot: every dcb key of a queue is on the queue's slot,
// whatever the stream and tag.
func TestKeysShareSlot(t *testing.T) {
	t.Parallel()
	const q = "cm"
	slot := keyspace.Slot(keyspace.QueueKey(q, "x"))
	for _, k := range []string{
		keyspace.DCBPosKey(q), keyspace.DCBFloorKey(q), keyspace.DCBTypesKey(q), keyspace.EngineCellKey(q),
		keyspace.DCBIndexKey(q, "guessed", "game=GAM1"), keyspace.DCBIndexKey(q, "x", "k=}{odd{"),
		keyspace.StreamKey(q, "guessed"),
	} {
		require.Equal(t, slot, keyspace.Slot(k), k)
		require.True(t, strings.HasPrefix(k, keyspace.DCBPrefix(q)), k)
	}
}

// TestCluster: tagged appends, query reads, conditional appends and an
// indexed trim run on a 3-master cluster (every script on the queue's
// slot).
func TestCluster(t *testing.T) {
	t.Parallel()
	cluster := echomqtest.StartCluster(t)
	c := connect(t, cluster.URL())
	s, err := dcb.New(c, echomqtest.Queue(t))
	require.NoError(t, err)
	g := dcb.Tags("game", "G1")
	q := dcb.Query{{Types: []string{"opened", "closed"}, Tags: g}}
	mustAppend(t, s, nil, ev("opened", g), ev("guessed", g))
	_, after, err := s.ReadAll(ctx, q, 0)
	require.NoError(t, err)
	mustAppend(t, s, nil, ev("closed", g))
	_, err = s.Append(ctx, []dcb.Append{ev("guessed", g)}, &dcb.Condition{Query: q, After: after})
	require.ErrorIs(t, err, echomq.ErrConflict)
	_, err = c.Stream(s.Queue(), "guessed").Trim(ctx, echomq.MaxLen(0))
	require.NoError(t, err)
	evs, _, err := s.ReadAll(ctx, dcb.Query{{Types: []string{"opened", "closed"}, Tags: g}}, 0)
	require.NoError(t, err)
	require.Len(t, evs, 2)
	_, _, err = s.ReadAll(ctx, dcb.Query{{Tags: g}}, 0)
	require.ErrorIs(t, err, dcb.ErrPosition)
}

// The append script's index key names (built by the wire layer from the
// queue's prefix) are keyspace's.
func TestIndexKeyNames(t *testing.T) {
	t.Parallel()
	q := "q{x}"
	require.Equal(t, keyspace.DCBIndexKey(q, "opened", "game=G1"), wire.DCBIndexKey(keyspace.DCBPrefix(q), "opened", "game=G1"))
}
