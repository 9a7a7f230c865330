package echomq_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/rawcmd"
)

// The receipt tests run writers in child processes (this test binary,
// re-executed into TestReceiptHelperProcess), each a client with its own
// node id and its own clock, appending round robin to the queue's shared
// streams and to a stream of its own, as separate programs would.
const receiptHelperEnv = "EMQ_RECEIPT_HELPER"

// receiptSeconds is how long the writers of TestReceiptsUniqueAcrossWriters
// run: 3 s by default, EMQ_RECEIPT_SECONDS=10 for the full run whose numbers
// are in BENCHMARKS.md.
func receiptSeconds(t *testing.T) time.Duration {
	if v := os.Getenv("EMQ_RECEIPT_SECONDS"); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err)
		return time.Duration(n) * time.Second
	}
	return 3 * time.Second
}

// receiptWriter is one writer process of the receipt tests.
type receiptWriter struct {
	node   int           // negative: the client leases its node id
	mode   string        // "serial", "batch" (16 goroutines, batches of 16) or "pipe" (64 goroutines)
	offset time.Duration // the writer's clock against the engine's
}

// TestReceiptHelperProcess is not a test: it is the body of a writer child
// process of the receipt tests, configured by EMQ_RU_* variables. From
// EMQ_RU_START (Unix ms) for EMQ_RU_FOR it appends in EMQ_RU_MODE round
// robin to the streams of EMQ_RU_STREAMS (comma-separated) of EMQ_RU_QUEUE,
// minting with a clock EMQ_RU_OFFSET_MS off the system's. It writes
// "<stream> <receipt>" per append to EMQ_RU_FILE, then "stats <records>
// <plain> <scripts> <refused> <arbitrated>".
func TestReceiptHelperProcess(t *testing.T) {
	t.Parallel()
	if os.Getenv(receiptHelperEnv) != "1" {
		t.Skip("runs only as a writer child process")
	}
	node, err := strconv.Atoi(os.Getenv("EMQ_RU_NODE"))
	require.NoError(t, err)
	offMs, err := strconv.Atoi(os.Getenv("EMQ_RU_OFFSET_MS"))
	require.NoError(t, err)
	off := time.Duration(offMs) * time.Millisecond
	cfg := &echomq.Config{URL: os.Getenv("EMQ_RU_URL"), Clock: func() time.Time { return time.Now().Add(off) }}
	if node >= 0 {
		cfg.NodeID = new(node) // a negative node: the client leases one
	}
	client, err := echomq.Connect(context.Background(), cfg)
	require.NoError(t, err)
	defer client.Close()
	// A stream is "name" in EMQ_RU_QUEUE, or "queue/name"; it is reported
	// as given.
	var streams []*echomq.Stream
	label := map[*echomq.Stream]string{}
	for spec := range strings.SplitSeq(os.Getenv("EMQ_RU_STREAMS"), ",") {
		q, name, ok := strings.Cut(spec, "/")
		if !ok {
			q, name = os.Getenv("EMQ_RU_QUEUE"), spec
		}
		s := client.Stream(q, name)
		streams = append(streams, s)
		label[s] = spec
	}
	start, err := strconv.ParseInt(os.Getenv("EMQ_RU_START"), 10, 64)
	require.NoError(t, err)
	time.Sleep(time.Until(time.UnixMilli(start))) // sleep: every child starts at the same instant
	runFor, err := time.ParseDuration(os.Getenv("EMQ_RU_FOR"))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), runFor+30*time.Second)
	defer cancel()
	deadline := time.Now().Add(runFor)

	var mu sync.Mutex
	var out strings.Builder
	record := func(s *echomq.Stream, ids ...echomq.ID) {
		mu.Lock()
		defer mu.Unlock()
		for _, id := range ids {
			fmt.Fprintf(&out, "%s %s\n", label[s], id)
		}
	}
	// loop runs body on g goroutines, each taking the streams round robin
	// from its own starting point, until the deadline.
	loop := func(g int, body func(s *echomq.Stream) error) {
		untilDeadline(t, g, deadline, func(_, n int) error { return body(streams[n%len(streams)]) })
	}
	single := func(s *echomq.Stream) error {
		id, err := s.Append(ctx, echomq.F("node", strconv.Itoa(node)), nil)
		if err == nil {
			record(s, id)
		}
		return err
	}
	switch mode := os.Getenv("EMQ_RU_MODE"); mode {
	case "serial":
		loop(1, single)
	case "pipe":
		loop(64, single)
	case "batch":
		batch := make([]echomq.Fields, 16)
		for i := range batch {
			batch[i] = echomq.F("node", strconv.Itoa(node), "i", strconv.Itoa(i))
		}
		loop(16, func(s *echomq.Stream) error {
			ids, err := s.AppendBatch(ctx, batch, nil)
			if err == nil {
				record(s, ids...)
			}
			return err
		})
	default:
		t.Fatalf("unknown mode %q", mode)
	}
	st := echomq.AppendStatsOf(client)
	fmt.Fprintf(&out, "stats %d %d %d %d %d\n", st.Records, st.Plain, st.Scripts, st.Refused, st.Arbitrated)
	require.NoError(t, os.WriteFile(os.Getenv("EMQ_RU_FILE"), []byte(out.String()), 0o644))
}

// receiptRun is what one writer child reported: its receipts per stream.
type receiptRun struct {
	w        receiptWriter
	receipts map[string][]echomq.ID
	stats    echomq.AppendStats
}

// runReceiptWriters starts one child per writer, all starting at the same
// instant, each appending to shared and to a stream of its own, and returns
// what each reported.
func runReceiptWriters(t *testing.T, url, queue string, shared []string, writers []receiptWriter, runFor time.Duration) []receiptRun {
	t.Helper()
	start := time.Now().Add(2 * time.Second).UnixMilli() // every child is up by then
	envs := make([][]string, len(writers))
	for i, w := range writers {
		streams := slices.Clone(shared)
		if w.node >= 0 {
			streams = append(streams, "own-"+strconv.Itoa(w.node))
		}
		envs[i] = []string{
			receiptHelperEnv + "=1", "EMQ_RU_URL=" + url, "EMQ_RU_QUEUE=" + queue,
			"EMQ_RU_STREAMS=" + strings.Join(streams, ","), "EMQ_RU_NODE=" + strconv.Itoa(w.node), "EMQ_RU_MODE=" + w.mode,
			"EMQ_RU_OFFSET_MS=" + strconv.FormatInt(w.offset.Milliseconds(), 10), "EMQ_RU_FOR=" + runFor.String(),
			"EMQ_RU_START=" + strconv.FormatInt(start, 10),
		}
	}
	runs := make([]receiptRun, len(writers))
	for i, file := range runChildren(t, "TestReceiptHelperProcess", "EMQ_RU_FILE", envs) {
		runs[i] = receiptRun{w: writers[i], receipts: map[string][]echomq.ID{}}
		f, err := os.Open(file)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			stream, receipt, ok := strings.Cut(sc.Text(), " ")
			require.True(t, ok, "line %q", sc.Text())
			if stream == "stats" {
				st := &runs[i].stats
				_, err := fmt.Sscan(receipt, &st.Records, &st.Plain, &st.Scripts, &st.Refused, &st.Arbitrated)
				require.NoError(t, err)
				continue
			}
			id, err := echomq.ParseEventID(receipt)
			require.NoError(t, err)
			runs[i].receipts[stream] = append(runs[i].receipts[stream], id)
		}
		require.NoError(t, sc.Err())
		f.Close()
	}
	return runs
}

// TestReceiptsUniqueAcrossWriters: writer processes with distinct node ids
// — two on the same clock, one 6 ms ahead, one 50 ms behind (serial), one
// appending batches of 16 from 16 goroutines and one single appends from 64
// goroutines — append round robin to two shared streams and a stream of
// their own. No receipt is handed out twice across every stream of the
// queue; every receipt is stored, as its stream's entry of the same id;
// each stream is in id order; and the shared streams' tops never ran more
// than 5 ms ahead of the engine's clock.
func TestReceiptsUniqueAcrossWriters(t *testing.T) {
	srv := echomqtest.Start(t) // a private engine: the writers load it fully
	q := echomqtest.Queue(t)
	shared := []string{"shared-a", "shared-b"}
	writers := []receiptWriter{
		{node: 5, mode: "serial"},
		{node: 900, mode: "serial"},
		{node: 17, mode: "serial", offset: 6 * time.Millisecond},
		{node: 300, mode: "serial", offset: -50 * time.Millisecond},
		{node: 600, mode: "batch"},
		{node: 1000, mode: "pipe"},
	}
	reader := connect(t, echomq.Config{URL: srv.URL(), NodeID: new(0)})
	stop := make(chan struct{})
	var sampler sync.WaitGroup
	var worst time.Duration
	sampler.Go(func() {
		for {
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
			for _, name := range shared {
				if lead, ok := topLead(t, srv, reader.Stream(q, name).Key()); ok {
					worst = max(worst, lead)
				}
			}
		}
	})
	runFor := receiptSeconds(t)
	runs := runReceiptWriters(t, srv.URL(), q, shared, writers, runFor)
	close(stop)
	sampler.Wait()
	require.LessOrEqual(t, worst, maxLead, "a shared stream's top ran ahead of the engine clock")

	handed := map[string][]echomq.ID{} // per stream
	var all []echomq.ID
	for _, r := range runs {
		var n int64
		for stream, ids := range r.receipts {
			handed[stream] = append(handed[stream], ids...)
			all = append(all, ids...)
			n += int64(len(ids))
		}
		require.Positive(t, n, "writer %d appended nothing", r.w.node)
		require.Equal(t, r.stats.Records, n, "writer %d", r.w.node)
		t.Logf("writer %d (%s, clock %+v): %d appends (%.0f/s), refused plain XADDs %.4f/append, arbitrated %.4f/append, scripts %.3f/append",
			r.w.node, r.w.mode, r.w.offset, n, float64(n)/runFor.Seconds(), float64(r.stats.Refused)/float64(n),
			float64(r.stats.Arbitrated)/float64(n), float64(r.stats.Scripts)/float64(n))
	}
	checkUniqueReceipts(t, all)
	for stream, ids := range handed {
		evs, err := reader.Stream(q, stream).Read(ctx, echomq.All, nil)
		require.NoError(t, err)
		stored := make([]echomq.ID, len(evs))
		for i, ev := range evs {
			require.Equal(t, ev.ID.EntryID(), ev.Entry, "%s: the receipt is the entry id's EVT id", stream)
			if i > 0 {
				require.Equal(t, 1, ev.ID.Compare(evs[i-1].ID), "%s: stream order is id order", stream)
			}
			stored[i] = ev.ID
		}
		slices.SortFunc(ids, echomq.ID.Compare)
		require.Equal(t, ids, stored, "%s: every receipt is stored, nothing else is", stream)
	}
	t.Logf("%d receipts over %d streams, none twice; worst top lead %v", len(all), len(handed), worst)
}

// checkUniqueReceipts fails naming the first receipt handed out twice.
func checkUniqueReceipts(t *testing.T, ids []echomq.ID) {
	t.Helper()
	sorted := slices.Clone(ids)
	slices.SortFunc(sorted, echomq.ID.Compare)
	var twice int
	var first echomq.ID
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			if twice == 0 {
				first = sorted[i]
			}
			twice++
		}
	}
	require.Zero(t, twice, "%d of %d receipts handed out twice (first: %s)", twice, len(ids), first)
}

// TestOnceOverContendedStreams: a handler wrapped in Once with one scope
// consumes two streams that two writers (distinct node ids, 8 goroutines
// each) contend on; every event is handled exactly once: none is skipped
// as a receipt seen on the other stream, none runs twice.
func TestOnceOverContendedStreams(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Shared(t)
	q := echomqtest.Queue(t)
	names := []string{"a", "b"}
	var mu sync.Mutex
	appended := map[string]int{} // "<stream> <receipt>" → appends
	var writers sync.WaitGroup
	deadline := time.Now().Add(time.Second)
	for _, node := range []int{5, 900} {
		w := connect(t, echomq.Config{URL: srv.URL(), NodeID: new(node)})
		for g := range 8 {
			writers.Go(func() {
				for n := g; time.Now().Before(deadline); n++ {
					s := w.Stream(q, names[n%2])
					id, err := s.Append(ctx, echomq.F("node", strconv.Itoa(node)), nil)
					if !assertNoError(t, err) {
						return
					}
					mu.Lock()
					appended[s.Name()+" "+id.String()]++
					mu.Unlock()
				}
			})
		}
	}
	writers.Wait()
	var all []echomq.ID
	for k := range appended {
		id, err := echomq.ParseEventID(strings.Fields(k)[1])
		require.NoError(t, err)
		all = append(all, id)
	}
	checkUniqueReceipts(t, all)

	c := connect(t, echomq.Config{URL: srv.URL()})
	handled := map[string]int{}
	done := make(chan struct{})
	var closeDone sync.Once
	h, err := echomq.Once(c, q, "shared", time.Hour, func(_ context.Context, d echomq.Delivery) error {
		mu.Lock()
		defer mu.Unlock()
		handled[d.Stream+" "+d.ID.String()]++
		if len(handled) == len(appended) {
			closeDone.Do(func() { close(done) })
		}
		return nil
	})
	require.NoError(t, err)
	runCtx, cancel := context.WithCancel(ctx)
	var consumers sync.WaitGroup
	for _, name := range names {
		cons, err := c.Consumer(&echomq.ConsumerConfig{
			Queue: q, Stream: name, Group: "g", Start: echomq.StartHead,
			Handle: h, Concurrency: 8, Beat: 100 * time.Millisecond,
		})
		require.NoError(t, err)
		consumers.Go(func() { assertNoError(t, cons.Run(runCtx)) })
	}
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
	}
	cancel()
	consumers.Wait()
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, handled, len(appended), "every event handled (%d appended)", len(appended))
	for k, n := range handled {
		require.Equal(t, 1, n, "%s handled %d times", k, n)
		require.Equal(t, 1, appended[k], "%s was appended", k)
	}
	t.Logf("%d events on 2 contended streams, each handled once", len(handled))
}

// assertNoError reports err from any goroutine without stopping it (a
// FailNow there would not stop the test).
func assertNoError(t *testing.T, err error) bool {
	t.Helper()
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Errorf("unexpected error: %v", err)
		return false
	}
	return true
}

// TestOriginalWriterInterop: a writer as the original EchoMQ is (its own
// minter under a configured node id whose lease key is held for it, its
// clock 4 ms ahead, a plain XADD of its id and never a retry) appends to a
// stream of its own and to one it shares with two Go clients, which also
// append to a shared stream of their own. No receipt the original got and
// none a Go client got is handed out twice; the original's refused appends
// (a Go writer was above it) wrote nothing; every stream is in id order.
func TestOriginalWriterInterop(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	q := echomqtest.Queue(t)
	const origNode = 700
	admin := connect(t, echomq.Config{URL: srv.URL(), NodeID: new(1)})
	_, err := rawcmd.Do(ctx, admin, "SET", fmt.Sprintf("emq:{%s}:node:%d", q, origNode), "elixir") // docs/keyspace.md, interop
	require.NoError(t, err)
	orig, err := echomq.NewMinter(origNode, func() time.Time { return time.Now().Add(4 * time.Millisecond) })
	require.NoError(t, err)

	var mu sync.Mutex
	var receipts []echomq.ID
	keep := func(ids ...echomq.ID) {
		mu.Lock()
		receipts = append(receipts, ids...)
		mu.Unlock()
	}
	deadline := time.Now().Add(2 * time.Second)
	var wg sync.WaitGroup
	var origOK, origRefused int
	wg.Go(func() {
		for n := 0; time.Now().Before(deadline); n++ {
			name := "orig-own"
			if n%2 == 1 {
				name = "mixed"
			}
			id := orig.NextID(echomq.BrandEvent)
			_, err := rawcmd.Do(ctx, admin, "XADD", admin.Stream(q, name).Key(), id.EntryID().String(), "id", id.String(), "writer", "orig")
			switch {
			case err == nil:
				origOK++
				keep(id)
			case errors.Is(err, echomq.ErrNonMonotonic):
				origRefused++
			default:
				t.Errorf("original writer: %v", err)
				return
			}
		}
	})
	for range 2 {
		c := connect(t, echomq.Config{URL: srv.URL()})
		for g := range 8 {
			wg.Go(func() {
				for n := g; time.Now().Before(deadline); n++ {
					s := c.Stream(q, []string{"mixed", "go-shared"}[n%2])
					id, err := s.Append(ctx, echomq.F("writer", "go"), nil)
					if !assertNoError(t, err) {
						return
					}
					if id.Snowflake().Node() == origNode {
						t.Errorf("a Go writer minted under the original's node: %s", id)
						return
					}
					keep(id)
				}
			})
		}
	}
	wg.Wait()
	checkUniqueReceipts(t, receipts)
	var stored int
	for _, name := range []string{"orig-own", "mixed", "go-shared"} {
		evs, err := admin.Stream(q, name).Read(ctx, echomq.All, nil)
		require.NoError(t, err)
		for i, ev := range evs {
			require.Equal(t, ev.ID.EntryID(), ev.Entry, "%s: the receipt is the entry id's EVT id", name)
			if i > 0 {
				require.Equal(t, 1, ev.ID.Compare(evs[i-1].ID), "%s: stream order is id order", name)
			}
		}
		stored += len(evs)
	}
	require.Equal(t, len(receipts), stored, "every receipt stored, the refused appends wrote nothing")
	require.Positive(t, origOK)
	t.Logf("original: %d appended, %d refused (a Go writer above it on the mixed stream); %d receipts in all, none twice", origOK, origRefused, len(receipts))
}
