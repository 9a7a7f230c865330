package echomq_test

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

func TestPublishedVectors(t *testing.T) {
	t.Parallel()
	id, err := echomq.ParseEventID("EVT000xY9Wvvcd")
	require.NoError(t, err)
	require.Equal(t, "1704117200000-1620567", id.EntryID().String())
	require.Equal(t, echomq.Snowflake(209715201620567), id.Snowflake())
	require.Equal(t, 395, id.Snowflake().Node())
	require.Equal(t, 2647, id.Snowflake().Seq())
	require.Equal(t, time.Date(2024, 1, 1, 13, 53, 20, 0, time.UTC), id.Time())

	usr, err := echomq.ParseID("USR0KHTOWnGLuC")
	require.NoError(t, err)
	require.Equal(t, "USR", usr.Brand())
	require.Equal(t, echomq.Snowflake(274557032793636864), usr.Snowflake())
	require.Equal(t, "USR0KHTOWnGLuC", echomq.MustID("USR", 274557032793636864).String())

	other, err := echomq.ParseID("USR0NgWEfAEJfs")
	require.NoError(t, err)
	require.Equal(t, echomq.Snowflake(320636799581945856), other.Snowflake())

	for _, v := range []struct {
		n    echomq.Snowflake
		text string
	}{
		{0, "00000000000"},
		{61, "0000000000z"},
		{62, "00000000010"},
		{274557032793636864, "0KHTOWnGLuC"},
		{math.MaxInt64, "AzL8n0Y58m7"},
	} {
		id, err := echomq.NewID("EVT", v.n)
		require.NoError(t, err)
		require.Equal(t, "EVT"+v.text, id.String(), "fixed-width base62 after the brand")
		back, err := echomq.ParseID("EVT" + v.text)
		require.NoError(t, err)
		require.Equal(t, v.n, back.Snowflake())
	}

	// Mint instants from the original's worked examples.
	at := time.Date(2025, 6, 11, 0, 0, 0, 123e6, time.UTC)
	require.Equal(t, echomq.Snowflake(190978405687099392), echomq.SnowflakeAt(at))
	require.Equal(t, "EVT0E6gLvcQw9w", echomq.MustID("EVT", echomq.SnowflakeAt(at)).String())
}

func TestParseIDRefuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
	}{
		{"empty", ""},
		{"13 bytes", "USR0KHTOWnGLu"},
		{"15 bytes", "USR0KHTOWnGLuCC"},
		{"above 2^63-1", "USRzzzzzzzzzzz"},
		{"just above 2^63-1", "EVTAzL8n0Y58m8"},
		{"lowercase brand", "usr0KHTOWnGLuC"},
		{"digit in brand", "US10KHTOWnGLuC"},
		{"bad byte", "USR0KHTOWn-LuC"},
		{"space", "USR0KHTOWn LuC"},
		{"high byte", "USR0KHTOWn\xffLuC"},
		{"not an id", "not-branded!!!"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := echomq.ParseID(tc.in)
			require.ErrorIs(t, err, echomq.ErrMalformedID)
			var ie *echomq.IDError
			require.ErrorAs(t, err, &ie)
			require.NotEmpty(t, ie.Reason)
		})
	}
	_, err := echomq.ParseID("EVTzzzzzzzzzzz")
	require.ErrorIs(t, err, echomq.ErrMalformedID)
	_, err = echomq.NewID("EVT", -1)
	require.ErrorIs(t, err, echomq.ErrMalformedID)
	_, err = echomq.ParseEventID("USR0KHTOWnGLuC")
	require.ErrorIs(t, err, echomq.ErrWrongKind)
	_, err = echomq.NewID("Ev1", 1)
	require.ErrorIs(t, err, echomq.ErrMalformedID)
	_, err = echomq.NewSnowflake(-1, 0, 0)
	require.ErrorIs(t, err, echomq.ErrMalformedID)
	_, err = echomq.NewSnowflake(0, 1024, 0)
	require.ErrorIs(t, err, echomq.ErrMalformedID)
	_, err = echomq.NewSnowflake(0, 0, 4096)
	require.ErrorIs(t, err, echomq.ErrMalformedID)
}

func TestIDTextRoundTrip(t *testing.T) {
	t.Parallel()
	id := echomq.MustID("GAM", 987654321987)
	b, err := id.MarshalText()
	require.NoError(t, err)
	var back echomq.ID
	require.NoError(t, back.UnmarshalText(b))
	require.Equal(t, id, back)
	require.ErrorIs(t, back.UnmarshalText([]byte("nope")), echomq.ErrMalformedID)
	require.True(t, echomq.ID{}.IsZero())
	require.Empty(t, echomq.ID{}.String())
}

func TestEntryIDParse(t *testing.T) {
	t.Parallel()
	e, err := echomq.ParseEntryID("1704117200000-1620567")
	require.NoError(t, err)
	require.Equal(t, echomq.EntryID{Ms: 1704117200000, Seq: 1620567}, e)
	e, err = echomq.ParseEntryID("5")
	require.NoError(t, err)
	require.Equal(t, echomq.EntryID{Ms: 5}, e)
	for _, bad := range []string{"", "-", "1-", "-1", "a-1", "1-b", "+1-2", "1-+2", "1-2-3", "18446744073709551616-0"} {
		_, err := echomq.ParseEntryID(bad)
		require.ErrorIs(t, err, echomq.ErrMalformedID, bad)
	}
	require.Equal(t, -1, echomq.EntryID{Ms: 1, Seq: 9}.Compare(echomq.EntryID{Ms: 1, Seq: 10}), "integer pairs, not strings")
	require.Equal(t, "5-0", echomq.Floor(time.UnixMilli(5)).String())
	require.Equal(t, "5-4194303", echomq.Ceil(time.UnixMilli(5)).String())
}

// TestOrderTheorem: for random ids of one brand, byte order of the text ⇔ A1
// entry-id order as integer pairs ⇔ snowflake order.
func TestOrderTheorem(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() echomq.Snowflake {
		switch r.IntN(4) {
		case 0: // same millisecond neighbourhood, to exercise the tail
			return echomq.Snowflake(int64(1_000_000)<<22 | r.Int64N(1<<22))
		case 1:
			return echomq.Snowflake(r.Int64N(1 << 40))
		default:
			return echomq.Snowflake(r.Int64())
		}
	}
	for range 200_000 {
		a, b := echomq.MustID("EVT", gen()), echomq.MustID("EVT", gen())
		bytesCmp := strings.Compare(a.String(), b.String())
		a1Cmp := a.EntryID().Compare(b.EntryID())
		snowCmp := cmpInt(int64(a.Snowflake()), int64(b.Snowflake()))
		require.Equal(t, snowCmp, bytesCmp, "%s vs %s", a, b)
		require.Equal(t, snowCmp, a1Cmp, "%s vs %s", a, b)
		require.Equal(t, snowCmp, a.Compare(b))
		back, ok := a.EntryID().Snowflake()
		require.True(t, ok)
		require.Equal(t, a.Snowflake(), back)
	}
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// steppingClock is a clock the test drives: each reading returns the next
// value of a script that bursts (many mints in one millisecond) and steps
// backwards.
type steppingClock struct {
	ms    int64
	calls int
}

func (c *steppingClock) now() time.Time {
	c.calls++
	switch {
	case c.calls%100_000 == 0:
		c.ms -= 5_000 // a clock step backwards of 5 s
	case c.calls%10_000 == 0:
		c.ms++ // otherwise 10 000 mints per millisecond: bursts past 4096
	}
	return time.UnixMilli(c.ms)
}

func TestMinterStrictlyIncreasing(t *testing.T) {
	t.Parallel()
	clk := &steppingClock{ms: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()}
	m, err := echomq.NewMinter(7, clk.now)
	require.NoError(t, err)
	prev := m.Next()
	for i := range 1_000_000 {
		next := m.Next()
		if next <= prev {
			t.Fatalf("mint %d: %d is not above %d", i, next, prev)
		}
		if next.Node() != 7 {
			t.Fatalf("mint %d: node %d", i, next.Node())
		}
		prev = next
	}
}

func TestMinterConcurrent(t *testing.T) {
	t.Parallel()
	m, err := echomq.NewMinter(3, nil)
	require.NoError(t, err)
	const workers, each = 8, 20_000
	out := make(chan []echomq.Snowflake, workers)
	for range workers {
		go func() {
			got := make([]echomq.Snowflake, each)
			for i := range got {
				got[i] = m.Next()
			}
			out <- got
		}()
	}
	seen := make(map[echomq.Snowflake]bool, workers*each)
	for range workers {
		got := echomqtest.Recv(t, out, 30*time.Second, "a minting worker's ids")
		for i, s := range got {
			require.False(t, seen[s], "duplicate")
			seen[s] = true
			if i > 0 {
				require.Greater(t, s, got[i-1])
			}
		}
	}
}

func TestMinterAdvancePast(t *testing.T) {
	t.Parallel()
	frozen := func() time.Time { return time.UnixMilli(echomq.Epoch + 1000) }
	for _, tc := range []struct {
		name   string
		node   int
		topTS  int64
		topN   int
		topSeq int
	}{
		{"higher node same ms", 9, 5000, 3, 4095},
		{"same node", 4, 5000, 4, 17},
		{"same node seq carries", 4, 5000, 4, 4095},
		{"lower node", 1, 5000, 900, 0},
		{"top in the past", 1, 10, 900, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m, err := echomq.NewMinter(tc.node, frozen)
			require.NoError(t, err)
			top, err := echomq.NewSnowflake(tc.topTS, tc.topN, tc.topSeq)
			require.NoError(t, err)
			m.AdvancePast(top)
			next := m.Next()
			require.Greater(t, next, top)
			require.Equal(t, tc.node, next.Node())
			if tc.topTS > 1000 {
				// Not above by more than needed: the same or the next millisecond.
				require.LessOrEqual(t, echomq.SnowflakeMillis(next), tc.topTS+1)
			}
		})
	}
}

func TestMinterSetNode(t *testing.T) {
	t.Parallel()
	frozen := func() time.Time { return time.UnixMilli(echomq.Epoch + 1000) }
	m, err := echomq.NewMinter(1000, frozen)
	require.NoError(t, err)
	a := m.Next()
	require.NoError(t, echomq.SetMinterNode(m, 2))
	b := m.Next()
	require.Greater(t, b, a, "a smaller node id must not mint below earlier ids")
	require.Equal(t, 2, b.Node())
	require.Error(t, echomq.SetMinterNode(m, 1024))
	_, err = echomq.NewMinter(-1, nil)
	require.ErrorIs(t, err, echomq.ErrMalformedID)
}

// TestSameMillisecondNodes: 512 mints with distinct nodes in one millisecond
// map to distinct, strictly increasing entry ids.
func TestSameMillisecondNodes(t *testing.T) {
	t.Parallel()
	frozen := func() time.Time { return time.UnixMilli(echomq.Epoch + 77) }
	var prev echomq.EntryID
	for n := range 512 {
		m, err := echomq.NewMinter(n, frozen)
		require.NoError(t, err)
		e := m.NextID("EVT").EntryID()
		require.Equal(t, uint64(echomq.Epoch+77), e.Ms)
		if n > 0 {
			require.Equal(t, 1, e.Compare(prev))
		}
		prev = e
	}
}
