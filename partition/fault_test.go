package partition_test

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/partition"
)

// recorder keeps the records of in-process members, as the acceptance
// run's processes write them.
type recorder struct {
	mu   sync.Mutex
	recs []record
}

func (r *recorder) add(rec record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, rec)
}

func (r *recorder) all() []record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]record(nil), r.recs...)
}

func (r *recorder) distinct() int {
	seen := map[string]bool{}
	for _, rec := range r.all() {
		if rec.kind == "H" {
			seen[rec.key+"/"+strconv.Itoa(rec.n)] = true
		}
	}
	return len(seen)
}

func (r *recorder) config(name string) *partition.MemberConfig {
	return &partition.MemberConfig{
		Group: "g", Name: name, Start: echomq.StartHead, Beat: 50 * time.Millisecond, LeaseTTL: time.Second, Logger: quiet,
		Consumer: &echomq.ConsumerConfig{Beat: 100 * time.Millisecond},
		OnChange: func(ch partition.Change) {
			kind := "L"
			if ch.Gained {
				kind = "G"
			}
			r.add(record{kind: kind, member: ch.Member, part: ch.Partition, token: ch.Token, start: ch.At.UnixNano(), end: ch.At.UnixNano()})
		},
		Handle: func(ctx context.Context, d echomq.Delivery) error {
			start := time.Now().UnixNano()
			l, _ := partition.LeaseOf(ctx)
			n, _ := strconv.Atoi(d.Fields.Value("n"))
			r.add(record{kind: "H", member: l.Member, part: l.Partition, token: l.Token, key: d.Fields.Value("key"), n: n, start: start, end: time.Now().UnixNano()})
			return nil
		},
	}
}

// TestMemberCutOff: a member whose engine goes silent stops handling its
// partitions before its leases could lapse; the other member takes them
// within LeaseTTL + Beat, and the cut-off member rejoins once the engine
// answers again. Checked from the handlers' records: every event handled,
// per key in order, no partition under two leases at once.
func TestMemberCutOff(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Shared(t)
	proxy := echomqtest.NewProxy(t, srv.Addr())
	direct := connect(t, srv.URL())
	viaProxy := connect(t, proxy.URL())
	q := echomqtest.Queue(t)
	s, err := partition.Create(ctx, direct, q, "orders", 4)
	require.NoError(t, err)
	sp, err := partition.Open(ctx, viaProxy, q, "orders")
	require.NoError(t, err)
	rec := &recorder{}
	logs := &echomqtest.Logs{}
	ca := rec.config("a")
	ca.Logger = logs.Logger()
	a, err := sp.Member(ca)
	require.NoError(t, err)
	b, err := s.Member(rec.config("b"))
	require.NoError(t, err)
	rctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { _ = a.Run(rctx) })
	wg.Go(func() { _ = b.Run(rctx) })
	defer wg.Wait()
	defer stop()
	echomqtest.WaitFor(t, 30*time.Second, "both members hold two partitions", func() bool {
		return len(a.Assignment().Held) == 2 && len(b.Assignment().Held) == 2
	})

	const keys = 20
	n := 0
	appendN := func(count int) {
		for range count {
			key := "k" + strconv.Itoa(n%keys)
			_, err := s.Append(ctx, key, echomq.F("key", key, "n", strconv.Itoa(n/keys)), nil)
			require.NoError(t, err)
			n++
		}
	}
	appendN(200)
	echomqtest.WaitFor(t, 30*time.Second, "the first events handled", func() bool { return rec.distinct() == n })

	proxy.Partition()
	cut := time.Now()
	appendN(200)
	echomqtest.WaitFor(t, 30*time.Second, "b holds all four", func() bool { return len(b.Assignment().Held) == 4 })
	took := time.Since(cut)
	echomqtest.WaitFor(t, 30*time.Second, "the events appended while a was cut off handled", func() bool { return rec.distinct() == n })
	// The bytes held by the partition are dropped, not delivered late.
	proxy.DropConnections()
	proxy.Heal()
	echomqtest.WaitFor(t, 30*time.Second, "a rejoined", func() bool {
		return len(a.Assignment().Held) == 2 && len(b.Assignment().Held) == 2
	})
	appendN(200)
	echomqtest.WaitFor(t, 30*time.Second, "every event handled", func() bool { return rec.distinct() == n })
	stop()
	wg.Wait()
	dups, handoffs := checkHandled(t, rec.all(), n, keys)
	// The cut-off member logs the outage and its end as every long-running
	// component does (docs/faults.md): once each, however many beats fail.
	down, up := logs.Count("echomq: partition member: engine unavailable; retrying"), logs.Count("echomq: partition member: engine back")
	require.GreaterOrEqual(t, down, 1, "%q", logs.Messages())
	require.Equal(t, down, up, "every outage logged its end: %q", logs.Messages())
	require.Zero(t, logs.Count("echomq: partition member: beat refused; retrying"), "%q", logs.Messages())
	t.Logf("b held all partitions %v after a was cut off (LeaseTTL 1s + Beat 50ms); %d duplicates, %d hand-offs; a logged %d outages", took, dups, handoffs, down)
	require.Less(t, took, 5*time.Second)
}
