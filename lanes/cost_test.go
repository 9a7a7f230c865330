package lanes_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/valkey-io/valkey-go"

	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
)

// The engine cost of the job lifecycle, counted in engine commands from the
// server's INFO commandstats, where the commands a script runs count one
// each and the EVALSHA that ran it one more. A count, unlike a time, is the
// same on a busy machine and an idle one, and it is what a deployment pays
// per job in engine CPU and replication traffic.
//
//	go test -run TestEngineCommandsPerJob -v ./lanes/
//	go test -run '^$' -bench BenchmarkEngineCommands -benchtime 2000x ./lanes/

// commandCounter reads one private server's commandstats.
type commandCounter struct{ vk valkey.Client }

func newCommandCounter(tb testing.TB, srv *echomqtest.Server) commandCounter {
	tb.Helper()
	vk, err := valkey.NewClient(valkey.ClientOption{InitAddress: []string{srv.Addr()}, DisableCache: true})
	require.NoError(tb, err)
	tb.Cleanup(vk.Close)
	return commandCounter{vk: vk}
}

// ignoredCommands are what clients send on their own (connection set-up,
// keepalive) and the counter's own reads: none is part of a job's cost.
var ignoredCommands = map[string]bool{
	"info": true, "ping": true, "hello": true, "client|setinfo": true, "client|setname": true,
	"config|resetstat": true, "select": true, "script|load": true,
}

// snapshot returns the calls per command since the last reset.
func (c commandCounter) snapshot(tb testing.TB) map[string]int64 {
	tb.Helper()
	info, err := c.vk.Do(ctx, c.vk.B().Info().Section("commandstats").Build()).ToString()
	require.NoError(tb, err)
	out := map[string]int64{}
	for line := range strings.Lines(info) {
		name, rest, ok := strings.Cut(strings.TrimSpace(line), ":calls=")
		if !ok || !strings.HasPrefix(name, "cmdstat_") {
			continue
		}
		name = strings.TrimPrefix(name, "cmdstat_")
		if ignoredCommands[name] {
			continue
		}
		v, _, _ := strings.Cut(rest, ",")
		n, err := strconv.ParseInt(v, 10, 64)
		require.NoError(tb, err)
		out[name] = n
	}
	return out
}

func (c commandCounter) reset(tb testing.TB) {
	tb.Helper()
	require.NoError(tb, c.vk.Do(ctx, c.vk.B().ConfigResetstat().Build()).Error())
}

// costRun is what one scenario spent: commands in all and per command.
type costRun struct {
	jobs  int
	total int64
	per   map[string]int64
}

func (r costRun) perJob() float64 { return float64(r.total) / float64(r.jobs) }

// String lists the commands per job, the most frequent first.
func (r costRun) String() string {
	names := slices.Collect(maps.Keys(r.per))
	slices.SortFunc(names, func(a, b string) int {
		if r.per[a] != r.per[b] {
			return int(r.per[b] - r.per[a])
		}
		return strings.Compare(a, b)
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%.2f commands/job:", r.perJob())
	for _, n := range names {
		fmt.Fprintf(&b, " %s %.2f", n, float64(r.per[n])/float64(r.jobs))
	}
	return b.String()
}

// measure runs op on a fresh queue of a private server (so no other test's
// commands are counted) after one untimed warm-up job that loads the
// scripts, and counts what op cost for jobs jobs.
func measure(tb testing.TB, jobs int, cfg *lanes.Config, op func(q *lanes.Queue, lane func(i int) string)) costRun {
	tb.Helper()
	// With EMQ_TEST_ADDR the server is the one given (scripts/lanes-cost.sh
	// counts its instructions), and only this benchmark may use it.
	srv := echomqtest.Shared(tb)
	if os.Getenv("EMQ_TEST_ADDR") == "" {
		srv = echomqtest.Start(tb)
	}
	q, err := lanes.New(connect(tb, srv.URL()), echomqtest.Queue(tb), cfg)
	require.NoError(tb, err)
	cc := newCommandCounter(tb, srv)
	warm := func(q *lanes.Queue) {
		enqueue(tb, q, "warm-up", "w")
		j := claimOne(tb, q, time.Minute)
		_, err := q.Fail(ctx, j, 0, errors.New("warm-up"))
		require.NoError(tb, err)
		require.NoError(tb, q.Complete(ctx, claimOne(tb, q, time.Minute)))
	}
	warm(q)
	cc.reset(tb)
	op(q, func(i int) string { return "lane-" + strconv.Itoa(i) })
	per := cc.snapshot(tb)
	var total int64
	for _, n := range per {
		total += n
	}
	return costRun{jobs: jobs, total: total, per: per}
}

// costScenario is one shape of traffic through the job lifecycle.
type costScenario struct {
	name string
	// ceiling is the most commands per job the scenario may cost.
	ceiling float64
	run     func(tb testing.TB, q *lanes.Queue, n int, lane func(int) string)
}

var costScenarios = []costScenario{
	{
		// codemojex's shape: a job on a lane with nothing else, claimed and
		// completed before the lane's next job arrives.
		name: "one job per lane", ceiling: 34.5,
		run: func(tb testing.TB, q *lanes.Queue, n int, lane func(int) string) {
			for i := range n {
				enqueue(tb, q, lane(i%50), "p")
				require.NoError(tb, q.Complete(ctx, claimOne(tb, q, time.Minute)))
			}
		},
	},
	{
		// A backlog: ten jobs in each lane, claimed one at a time.
		name: "backlog of 10 per lane", ceiling: 34.5,
		run: func(tb testing.TB, q *lanes.Queue, n int, lane func(int) string) {
			for i := range n {
				enqueue(tb, q, lane(i/10), "p")
			}
			for range n {
				require.NoError(tb, q.Complete(ctx, claimOne(tb, q, time.Minute)))
			}
		},
	},
	{
		// Batches: 16 jobs on 16 lanes with nothing else, enqueued in one
		// call, claimed in one and completed in one (a Worker's or
		// codemojex's shape under load). The per-queue bookkeeping is paid
		// per call, not per job.
		name: "batch of 16 one-job lanes", ceiling: 14.5,
		run: func(tb testing.TB, q *lanes.Queue, n int, lane func(int) string) {
			for from := 0; from < n; from += 16 {
				k := min(16, n-from)
				reqs := make([]lanes.Request, k)
				for i := range reqs {
					reqs[i] = lanes.Request{Lane: lane((from + i) % 64), Payload: []byte("p")}
				}
				res, err := q.EnqueueBatch(ctx, reqs)
				require.NoError(tb, err)
				for _, r := range res {
					require.NoError(tb, r.Err)
				}
				jobs, err := q.Claim(ctx, k, time.Minute)
				require.NoError(tb, err)
				require.Len(tb, jobs, k)
				require.NoError(tb, lanes.CompleteAll(ctx, q, jobs))
			}
		},
	},
	{
		// The retry path: every job fails once (no backoff) and then
		// completes.
		name: "fail once, then complete", ceiling: 59.5,
		run: func(tb testing.TB, q *lanes.Queue, n int, lane func(int) string) {
			for i := range n {
				enqueue(tb, q, lane(i%50), "p")
				_, err := q.Fail(ctx, claimOne(tb, q, time.Minute), 0, errors.New("again"))
				require.NoError(tb, err)
				require.NoError(tb, q.Complete(ctx, claimOne(tb, q, time.Minute)))
			}
		},
	},
}

// TestEngineCommandsPerJob keeps the lifecycle's engine commands within
// their budget; -v shows where they go.
func TestEngineCommandsPerJob(t *testing.T) {
	t.Parallel()
	for _, sc := range costScenarios {
		t.Run(sc.name, func(t *testing.T) {
			t.Parallel()
			const n = 200
			r := measure(t, n, nil, func(q *lanes.Queue, lane func(int) string) { sc.run(t, q, n, lane) })
			t.Log(r)
			require.LessOrEqual(t, r.perJob(), sc.ceiling, "%s", r)
		})
	}
}

// BenchmarkEngineCommands reports commands per job for each scenario and
// for a Worker that serves jobs enqueued one at a time (what it adds: its
// claims that find nothing, its waits on the wake list).
func BenchmarkEngineCommands(b *testing.B) {
	for _, sc := range costScenarios {
		b.Run(strings.ReplaceAll(sc.name, " ", "_"), func(b *testing.B) {
			r := measure(b, b.N, nil, func(q *lanes.Queue, lane func(int) string) { sc.run(b, q, b.N, lane) })
			b.ReportMetric(r.perJob(), "cmds/job")
			b.Log(r)
		})
	}
	b.Run("worker,_one_job_at_a_time", func(b *testing.B) {
		r := measure(b, b.N, nil, func(q *lanes.Queue, lane func(int) string) {
			handled := make(chan struct{}, 1)
			w, err := lanes.NewWorker(q, lanes.HandlerFunc(func(context.Context, *lanes.Job) error {
				handled <- struct{}{}
				return nil
			}), &lanes.WorkerConfig{Concurrency: 4, Logger: quiet})
			require.NoError(b, err)
			require.NoError(b, w.Start(ctx))
			// Like a codemojex player, the next job waits for the last.
			for i := range b.N {
				enqueue(b, q, lane(i%50), "p")
				echomqtest.Recv(b, handled, 30*time.Second, "the worker to handle the job")
			}
			require.NoError(b, w.Stop(ctx))
		})
		b.ReportMetric(r.perJob(), "cmds/job")
		b.Log(r)
	})
}
