package echomq_test

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

// driftSeconds is how long each cell of the drift matrix runs: 2 s by
// default, EMQ_DRIFT_SECONDS=10 for the full run whose numbers are in
// BENCHMARKS.md.
func driftSeconds(t *testing.T) time.Duration {
	if v := os.Getenv("EMQ_DRIFT_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err)
		return time.Duration(n) * time.Second
	}
	return 2 * time.Second
}

// maxLead is the time law: no receipt's mint instant is further ahead of
// the engine's clock.
const maxLead = 5 * time.Millisecond

// TestDriftMatrix: W ∈ {2, 4, 16} writer processes with distinct node ids
// append to one stream, serially, from 64 goroutines each, or at 500/s
// each. Throughout, the stream's top (sampled atomically with the engine's
// TIME) is never more than 5 ms ahead of the engine's clock; afterwards a
// window read [start, now] returns every receipt, stream order is id order
// and no receipt appears twice. Each cell logs refusals and extra round
// trips per append.
func TestDriftMatrix(t *testing.T) {
	srv := echomqtest.Start(t) // a private engine: the cells load it fully
	runFor := driftSeconds(t)
	for _, w := range []int{2, 4, 16} {
		for _, mode := range []string{"serial", "pipelined", "rate"} {
			t.Run(fmt.Sprintf("W%d/%s", w, mode), func(t *testing.T) {
				checkDriftCell(t, srv, w, mode, runFor)
			})
		}
	}
}

func checkDriftCell(t *testing.T, srv *echomqtest.Server, w int, mode string, runFor time.Duration) {
	q := echomqtest.Queue(t)
	reader := connect(t, echomq.Config{URL: srv.URL(), NodeID: new(0)})
	s := reader.Stream(q, "drift")
	nodes := make([]int, w)
	for i := range nodes {
		nodes[i] = 1000 - 61*i // spread over the node range, highest first
	}
	start, err := reader.EngineTime(ctx)
	require.NoError(t, err)

	stop := make(chan struct{})
	var sampler sync.WaitGroup
	var worst time.Duration
	var samples int
	sampler.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			lead, ok := topLead(t, srv, s.Key())
			if ok {
				samples++
				worst = max(worst, lead)
			}
		}
	})
	runs := runWriters(t, srv.URL(), q, "drift", mode, nodes, runFor)
	close(stop)
	sampler.Wait()
	lead, _ := topLead(t, srv, s.Key())
	worst = max(worst, lead)
	require.LessOrEqual(t, worst, maxLead, "the top ran ahead of the engine clock (%d samples)", samples)

	var receipts []echomq.ID
	var st echomq.AppendStats
	for _, r := range runs {
		receipts = append(receipts, r.receipts...)
		st.Records += r.stats.Records
		st.Plain += r.stats.Plain
		st.Scripts += r.stats.Scripts
		st.Refused += r.stats.Refused
		st.Arbitrated += r.stats.Arbitrated
	}
	require.EqualValues(t, len(receipts), st.Records)
	end, err := reader.EngineTime(ctx)
	require.NoError(t, err)
	evs, err := s.Read(ctx, echomq.Window(start, end), nil)
	require.NoError(t, err)
	window := make([]echomq.ID, len(evs))
	for i, ev := range evs {
		require.Equal(t, ev.ID.EntryID(), ev.Entry, "the receipt is the entry id's EVT id")
		window[i] = ev.ID
	}
	for i := 1; i < len(window); i++ {
		require.Equal(t, 1, window[i].Compare(window[i-1]), "stream order is id order, no id twice")
	}
	slices.SortFunc(receipts, echomq.ID.Compare)
	require.Len(t, receipts, len(slices.Compact(slices.Clone(receipts))), "no receipt twice")
	require.Equal(t, receipts, window, "the window [start, now] holds every receipt")

	n := float64(st.Records)
	t.Logf("W=%d %s: %d appends (%.0f/s), refused plain XADDs %.4f/append, arbitrated in script %.4f/append, extra round trips %.4f/append, scripts %.3f/append, worst top lead %v",
		w, mode, st.Records, n/runFor.Seconds(), float64(st.Refused)/n, float64(st.Arbitrated)/n, float64(st.Refused)/n, float64(st.Scripts)/n, worst)
}

// topLead returns how far the stream's top is ahead of the engine's clock,
// read together in one MULTI so nothing runs between them.
func topLead(t *testing.T, srv *echomqtest.Server, key string) (time.Duration, bool) {
	reply, err := echomqtest.Atomic(srv.Addr(), []string{"TIME"}, []string{"XREVRANGE", key, "+", "-", "COUNT", "1"})
	require.NoError(t, err)
	tm := reply[0].([]any)
	sec, _ := strconv.ParseInt(tm[0].(string), 10, 64)
	usec, _ := strconv.ParseInt(tm[1].(string), 10, 64)
	top, _ := reply[1].([]any)
	if len(top) == 0 {
		return 0, false
	}
	e, err := echomq.ParseEntryID(top[0].([]any)[0].(string))
	require.NoError(t, err)
	return time.UnixMilli(int64(e.Ms)).Sub(time.UnixMicro(sec*1_000_000 + usec)), true
}
