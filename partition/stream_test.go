package partition_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/partition"
)

func TestCreateOpen(t *testing.T) {
	t.Parallel()
	c := connect(t, echomqtest.Shared(t).URL())
	q := echomqtest.Queue(t)
	s, err := partition.Create(ctx, c, q, "orders", 4)
	require.NoError(t, err)
	require.Equal(t, 4, s.Partitions())
	again, err := partition.Create(ctx, c, q, "orders", 4)
	require.NoError(t, err, "creating it again with the same count is fine")
	require.Equal(t, 4, again.Partitions())

	_, err = partition.Create(ctx, c, q, "orders", 8)
	var me *partition.MismatchError
	require.ErrorAs(t, err, &me)
	require.ErrorIs(t, err, partition.ErrMismatch)
	require.Equal(t, []int{4}, me.Have)
	require.Equal(t, 8, me.Want)

	o, err := partition.Open(ctx, c, q, "orders")
	require.NoError(t, err)
	require.Equal(t, 4, o.Partitions())
	require.Equal(t, "emq:{"+q+"}:partitions:orders", o.Key())
	for i := range 4 {
		pq, err := partition.QueueOf(q, i, 4)
		require.NoError(t, err)
		require.Equal(t, pq, o.Partition(i).Queue())
		require.Equal(t, "orders", o.Partition(i).Name())
	}
	require.Nil(t, o.Partition(4))
	require.Nil(t, o.Partition(-1))

	_, err = partition.Open(ctx, c, q, "other")
	require.ErrorIs(t, err, partition.ErrNotPartitioned)
	var npe *partition.NotPartitionedError
	require.ErrorAs(t, err, &npe)
}

// TestBadInput: every verb refuses bad input with a typed error before any
// I/O, and writes nothing.
func TestBadInput(t *testing.T) {
	t.Parallel()
	c := connect(t, echomqtest.Shared(t).URL())
	q := echomqtest.Queue(t)
	long := strings.Repeat("q", 120)
	for _, tc := range []struct {
		name        string
		queue, strm string
		p           int
		want        error
	}{
		{"bad queue", "a b", "s", 2, echomq.ErrInvalidName},
		{"reserved queue emq", "emq", "s", 2, echomq.ErrInvalidName},
		{"queue holds the partition marker", q + ".emq-p0of2-1", "s", 2, echomq.ErrInvalidName},
		{"queue too long for its partitions", long, "s", 2, echomq.ErrInvalidName},
		{"bad stream", q, "a:b", 2, echomq.ErrInvalidName},
		{"empty stream", q, "", 2, echomq.ErrInvalidName},
		{"zero partitions", q, "s", 0, echomq.ErrInvalidArgument},
		{"too many partitions", q, "s", partition.MaxPartitions + 1, echomq.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := partition.Create(ctx, c, tc.queue, tc.strm, tc.p)
			require.ErrorIs(t, err, tc.want)
			if tc.p >= 1 && tc.p <= partition.MaxPartitions {
				_, err = partition.Open(ctx, c, tc.queue, tc.strm)
				require.ErrorIs(t, err, tc.want)
			}
		})
	}
	_, err := partition.Create(ctx, nil, q, "s", 1)
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
	for _, bad := range []struct{ i, p int }{{-1, 2}, {2, 2}, {0, 0}, {0, partition.MaxPartitions + 1}} {
		_, err := partition.QueueOf(q, bad.i, bad.p)
		require.ErrorIs(t, err, echomq.ErrInvalidArgument, "QueueOf(%d, %d)", bad.i, bad.p)
	}
	_, err = partition.QueueOf("a b", 0, 1)
	require.ErrorIs(t, err, echomq.ErrInvalidName)

	_, s := setup(t, 2)
	_, err = s.Append(ctx, "k", echomq.F("odd"), nil)
	require.ErrorIs(t, err, echomq.ErrInvalidFields)
	for ev, err := range s.Scan(ctx, echomq.All, &echomq.ScanOpts{Reverse: true}) {
		require.ErrorIs(t, err, echomq.ErrInvalidArgument)
		require.Zero(t, ev)
	}
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Empty(t, evs, "nothing was written")
}

// TestRoutingTable pins the routing function: it is part of the format.
func TestRoutingTable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		key  string
		p    int
		want int
	}{
		{"", 1, 0},
		{"anything", 1, 0},
		{"", 8, int(14695981039346656037 % 8)}, // the FNV-1a offset basis
		{"a", 8, int(0xaf63dc4c8601ec8c % 8)},
		{"a", 16, int(0xaf63dc4c8601ec8c % 16)},
		{"foobar", 1000, int(0x85944171f73967e8 % 1000)},
	} {
		require.Equal(t, tc.want, partition.Route(tc.key, tc.p), "Route(%q, %d)", tc.key, tc.p)
	}
}

// TestNamesSpreadOverSlots: the partitions of a stream land one in each
// equal arc of the slot space, so on a cluster of P or fewer equal masters
// they spread as evenly as P allows.
func TestNamesSpreadOverSlots(t *testing.T) {
	t.Parallel()
	for _, p := range []int{1, 2, 3, 8, 16, 100, partition.MaxPartitions} {
		seen := map[string]bool{}
		for i := range p {
			name, err := partition.QueueOf("shop", i, p)
			require.NoError(t, err)
			require.NoError(t, echomq.CheckName("queue", name))
			require.True(t, strings.HasPrefix(name, "shop.emq-p"+strconv.Itoa(i)+"of"+strconv.Itoa(p)+"-"), name)
			slot := keyspace.Slot(name)
			require.GreaterOrEqual(t, slot, i*16384/p, name)
			require.Less(t, slot, (i+1)*16384/p, name)
			require.False(t, seen[name])
			seen[name] = true
		}
	}
	a, _ := partition.QueueOf("shop", 3, 8)
	b, _ := partition.QueueOf("shop", 3, 8)
	require.Equal(t, a, b, "names are stable")
}

func TestAppendRoutesAndReadMerges(t *testing.T) {
	t.Parallel()
	_, s := setup(t, 4)
	var want []echomq.ID
	perKey := map[string][]echomq.ID{}
	for i := range 40 {
		key := "k" + strconv.Itoa(i%7)
		id, err := s.Append(ctx, key, echomq.F("n", strconv.Itoa(i), "key", key), nil)
		require.NoError(t, err)
		want = append(want, id)
		perKey[key] = append(perKey[key], id)
	}
	// Every key's events live in its partition, in order.
	for key, kids := range perKey {
		evs, err := s.Partition(s.Route(key)).Read(ctx, echomq.All, nil)
		require.NoError(t, err)
		var got []echomq.ID
		for _, ev := range evs {
			if v, _ := ev.Fields.Get("key"); v == key {
				got = append(got, ev.ID)
			}
		}
		require.Equal(t, kids, got, key)
	}
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 40)
	for i := 1; i < len(evs); i++ {
		require.Negative(t, evs[i-1].Entry.Compare(evs[i].Entry), "merged in id order")
	}
	require.ElementsMatch(t, want, ids(evs))

	var scanned []echomq.Event
	for ev, err := range s.Scan(ctx, echomq.All, &echomq.ScanOpts{PageSize: 3}) {
		require.NoError(t, err)
		scanned = append(scanned, ev)
	}
	require.Equal(t, ids(evs), ids(scanned))

	newest, err := s.Read(ctx, echomq.All, &echomq.ReadOpts{Count: 5, Reverse: true})
	require.NoError(t, err)
	require.Len(t, newest, 5)
	for i := range 5 {
		require.Equal(t, evs[39-i].ID, newest[i].ID)
	}
	oldest, err := s.Read(ctx, echomq.All, &echomq.ReadOpts{Count: 5})
	require.NoError(t, err)
	require.Equal(t, ids(evs[:5]), ids(oldest))

	// Key-less appends spread over the partitions in turn.
	for i := range 8 {
		_, err := s.Append(ctx, "", echomq.F("spread", strconv.Itoa(i)), nil)
		require.NoError(t, err)
	}
	ids, err := s.AppendBatch(ctx, "batch", []echomq.Fields{echomq.F("b", "1"), echomq.F("b", "2")}, nil)
	require.NoError(t, err)
	require.Len(t, ids, 2)
	per := make([]int, 4)
	for i := range 4 {
		evs, err := s.Partition(i).Read(ctx, echomq.All, nil)
		require.NoError(t, err)
		for _, ev := range evs {
			if _, ok := ev.Fields.Get("spread"); ok {
				per[i]++
			}
		}
	}
	require.Equal(t, []int{2, 2, 2, 2}, per)
}

func TestFollowMerges(t *testing.T) {
	t.Parallel()
	_, s := setup(t, 3)
	fctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	got := make(chan echomq.Event, 100)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range s.Follow(fctx, &echomq.FollowOpts{From: echomq.Inclusive(echomq.EntryID{})}) {
			if err != nil {
				return
			}
			got <- ev
		}
	}()
	var want []echomq.ID
	for i := range 30 {
		id, err := s.Append(ctx, fmt.Sprint("key", i%5), echomq.F("n", strconv.Itoa(i)), nil)
		require.NoError(t, err)
		want = append(want, id)
	}
	var evs []echomq.Event
	for range 30 {
		evs = append(evs, echomqtest.Recv(t, got, 30*time.Second, "a followed event"))
	}
	// Across partitions the order is by id (each partition's queue mints
	// its own ids), not the order of the appends.
	slices.SortFunc(want, func(a, b echomq.ID) int { return a.EntryID().Compare(b.EntryID()) })
	require.Equal(t, want, ids(evs), "merged in id order")
	cancel()
	echomqtest.Recv(t, done, 30*time.Second, "the follower to end")
}

// TestRepartition: new events go to the new partitions, reads merge both
// generations, and a stale handle cannot repartition.
func TestRepartition(t *testing.T) {
	t.Parallel()
	c, s := setup(t, 2)
	var want []echomq.ID
	for i := range 10 {
		id, err := s.Append(ctx, "k"+strconv.Itoa(i), echomq.F("gen", "1"), nil)
		require.NoError(t, err)
		want = append(want, id)
	}
	s3, err := s.Repartition(ctx, 3)
	require.NoError(t, err)
	require.Equal(t, []int{2, 3}, s3.Counts())
	require.Equal(t, 3, s3.Partitions())
	require.Len(t, s3.All(), 5)
	_, err = s.Repartition(ctx, 4)
	require.ErrorIs(t, err, partition.ErrMismatch, "a stale handle")
	_, err = s3.Repartition(ctx, 0)
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)

	o, err := partition.Open(ctx, c, s.Queue(), s.Name())
	require.NoError(t, err)
	require.Equal(t, []int{2, 3}, o.Counts())
	_, err = partition.Create(ctx, c, s.Queue(), s.Name(), 3)
	require.NoError(t, err, "Create matches the newest count")
	for i := range 9 {
		id, err := o.Append(ctx, "k"+strconv.Itoa(i), echomq.F("gen", "2"), nil)
		require.NoError(t, err)
		want = append(want, id)
	}
	inNew := 0
	for i := range 3 {
		evs, err := o.Partition(i).Read(ctx, echomq.All, nil)
		require.NoError(t, err)
		for _, ev := range evs {
			require.Equal(t, "2", ev.Fields.Value("gen"), "only new events in the new generation")
		}
		inNew += len(evs)
	}
	require.Equal(t, 9, inNew)
	evs, err := o.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.ElementsMatch(t, want, ids(evs), "reads merge both generations")
}

func TestTyped(t *testing.T) {
	t.Parallel()
	_, s := setup(t, 3)
	tv := partition.NewTyped[order](s, nil, &echomq.TypedOpts{Version: 2, Upcasters: []echomq.UpcastFunc{
		func(f echomq.Fields) (echomq.Fields, error) { return f.Rename("item", "v"), nil },
	}})
	require.NoError(t, tv.Err())
	for i := range 6 {
		key := "k" + strconv.Itoa(i%2)
		_, err := tv.Append(ctx, key, order{Key: key, V: strconv.Itoa(i)}, nil)
		require.NoError(t, err)
	}
	// A version-1 event written by an older program is upcast on read.
	_, err := s.Append(ctx, "k0", echomq.F("key", "k0", "item", "old"), nil)
	require.NoError(t, err)
	evs, err := tv.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 7)
	perKey := map[string][]string{}
	for _, ev := range evs {
		perKey[ev.Value.Key] = append(perKey[ev.Value.Key], ev.Value.V)
		if ev.Value.V == "old" {
			require.Equal(t, 1, ev.Version)
		} else {
			require.Equal(t, 2, ev.Version)
		}
	}
	require.Equal(t, map[string][]string{"k0": {"0", "2", "4", "old"}, "k1": {"1", "3", "5"}}, perKey, "per key in order")
	n := 0
	for ev, err := range tv.Scan(ctx, echomq.All, nil) {
		require.NoError(t, err)
		require.Equal(t, evs[n].ID, ev.ID)
		n++
	}
	require.Equal(t, 7, n)
	_, err = tv.Read(ctx, echomq.All, &echomq.ReadOpts{Reverse: true})
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
	bad := partition.NewTyped[order](s, nil, &echomq.TypedOpts{Version: -1})
	_, err = bad.Append(ctx, "k", order{}, nil)
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
}

// TestFollowConcurrentWriters: a follower of a stream written by several
// goroutines at once yields every event once, each partition's (so each
// key's) events in order.
func TestFollowConcurrentWriters(t *testing.T) {
	t.Parallel()
	_, s := setup(t, 3)
	fctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	const writers, each = 4, 100
	got := make(chan echomq.Event, writers*each)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ev, err := range s.Follow(fctx, &echomq.FollowOpts{From: echomq.Inclusive(echomq.EntryID{})}) {
			if err != nil {
				return
			}
			got <- ev
		}
	}()
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				key := "w" + strconv.Itoa(w) + "k" + strconv.Itoa(i%3)
				if _, err := s.Append(ctx, key, echomq.F("key", key, "n", strconv.Itoa(i)), nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	seen := map[echomq.ID]bool{}
	last := map[string]int{}
	for range writers * each {
		ev := echomqtest.Recv(t, got, 30*time.Second, "a followed event")
		require.False(t, seen[ev.ID], "once")
		seen[ev.ID] = true
		key := ev.Fields.Value("key")
		n, _ := strconv.Atoi(ev.Fields.Value("n"))
		if prev, ok := last[key]; ok {
			require.Greater(t, n, prev, "key %s in order", key)
		}
		last[key] = n
	}
	cancel()
	echomqtest.Recv(t, done, 30*time.Second, "the follower to end")
}
