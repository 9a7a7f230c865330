package bench_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
)

// The benchmarks run lanes and Asynq on the same redis-server in the same
// run, with the same work: benchTasks tasks enqueued by benchProducers
// goroutines, then processed by benchConcurrency handlers doing nothing.
// Lanes spreads its tasks over benchLanes lanes and keeps each lane in
// order (one job in flight per lane); Asynq has no per-key order.
const (
	benchTasks       = 20_000
	benchProducers   = 8
	benchConcurrency = 10
	benchLanes       = 1_000
)

// benchServer is a private redis-server for one benchmark, shared by both
// sides.
func benchServer(b *testing.B) *echomqtest.Server {
	b.Helper()
	return echomqtest.Start(b)
}

func benchQueue(b *testing.B, srv *echomqtest.Server) *lanes.Queue {
	b.Helper()
	q, err := lanes.New(connect(b, srv.URL()), echomqtest.Queue(b), nil)
	require.NoError(b, err)
	return q
}

func asynqOpt(srv *echomqtest.Server) asynq.RedisClientOpt {
	return asynq.RedisClientOpt{Addr: srv.Addr()}
}

// benchRounds splits the work into rounds that alternate which system
// goes first, so a change of load on the machine hits both alike.
const benchRounds = 10

// produce runs enqueue(i) for tasks from..to-1 from benchProducers
// goroutines and returns the time it took.
func produce(b *testing.B, from, to int, enqueue func(i int) error) time.Duration {
	b.Helper()
	var wg sync.WaitGroup
	var failed atomic.Value
	start := time.Now()
	for p := range benchProducers {
		wg.Go(func() {
			for i := from + p; i < to; i += benchProducers {
				if err := enqueue(i); err != nil {
					failed.Store(err)
					return
				}
			}
		})
	}
	wg.Wait()
	d := time.Since(start)
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	return d
}

func lanesPayload(i int) (string, []byte) {
	return "PLR" + strconv.Itoa(i%benchLanes), []byte(strconv.Itoa(i))
}

// rounds calls each step for every round, in turn and alternating their
// order, with the round's task range.
func rounds(steps ...func(from, to int)) {
	per := benchTasks / benchRounds
	for r := range benchRounds {
		from, to := r*per, (r+1)*per
		for k := range steps {
			i := k
			if r%2 == 1 {
				i = len(steps) - 1 - k
			}
			steps[i](from, to)
		}
	}
}

// BenchmarkEnqueue: enqueue rate of lanes against Asynq, one task per call
// from benchProducers goroutines (and, for reference, lanes batches of 100).
func BenchmarkEnqueue(b *testing.B) {
	srv := benchServer(b)
	var lanesTime, batchTime, asynqTime time.Duration
	for b.Loop() {
		q, qb := benchQueue(b, srv), benchQueue(b, srv)
		client := asynq.NewClient(asynqOpt(srv))
		name := "bench-" + echomqtest.Queue(b)
		rounds(func(from, to int) {
			lanesTime += produce(b, from, to, func(i int) error {
				lane, p := lanesPayload(i)
				_, err := q.Enqueue(ctx, lane, p, nil)
				return err
			})
		}, func(from, to int) {
			asynqTime += produce(b, from, to, func(i int) error {
				_, err := client.Enqueue(asynq.NewTask("noop", []byte(strconv.Itoa(i))), asynq.Queue(name))
				return err
			})
		}, func(from, to int) {
			const per = 100
			batchTime += produce(b, from, to, func(i int) error {
				if (i-from)%(benchProducers*per) >= benchProducers {
					return nil // one call enqueues `per` tasks
				}
				reqs := make([]lanes.Request, 0, per)
				for k := i; k < min(i+per*benchProducers, to); k += benchProducers {
					lane, p := lanesPayload(k)
					reqs = append(reqs, lanes.Request{Lane: lane, Payload: p})
				}
				_, err := qb.EnqueueBatch(ctx, reqs)
				return err
			})
		})
		require.NoError(b, client.Close())
		deleteAsynqQueue(b, srv, name)
	}
	n := float64(b.N * benchTasks)
	b.ReportMetric(n/lanesTime.Seconds(), "lanes_ops/s")
	b.ReportMetric(n/batchTime.Seconds(), "lanes_batch_ops/s")
	b.ReportMetric(n/asynqTime.Seconds(), "asynq_ops/s")
	b.ReportMetric(asynqTime.Seconds()/lanesTime.Seconds(), "x_vs_asynq")
	b.ReportMetric(asynqTime.Seconds()/batchTime.Seconds(), "batch_x_vs_asynq")
}

// BenchmarkProcess: claim+complete rate of a no-op handler, lanes against
// Asynq; each round's tasks are enqueued before the clock starts.
func BenchmarkProcess(b *testing.B) {
	srv := benchServer(b)
	var lanesTime, asynqTime time.Duration
	for b.Loop() {
		q := benchQueue(b, srv)
		client := asynq.NewClient(asynqOpt(srv))
		name := "bench-" + echomqtest.Queue(b)
		rounds(func(from, to int) {
			reqs := make([]lanes.Request, 0, to-from)
			for i := from; i < to; i++ {
				lane, p := lanesPayload(i)
				reqs = append(reqs, lanes.Request{Lane: lane, Payload: p})
			}
			_, err := q.EnqueueBatch(ctx, reqs)
			require.NoError(b, err)
			lanesTime += processLanes(b, q, to-from)
		}, func(from, to int) {
			produce(b, from, to, func(i int) error {
				_, err := client.Enqueue(asynq.NewTask("noop", []byte(strconv.Itoa(i))), asynq.Queue(name))
				return err
			})
			asynqTime += processAsynq(b, srv, name, to-from)
		})
		require.NoError(b, client.Close())
		deleteAsynqQueue(b, srv, name)
	}
	n := float64(b.N * benchTasks)
	b.ReportMetric(n/lanesTime.Seconds(), "lanes_ops/s")
	b.ReportMetric(n/asynqTime.Seconds(), "asynq_ops/s")
	b.ReportMetric(asynqTime.Seconds()/lanesTime.Seconds(), "x_vs_asynq")
}

// processLanes runs a worker until the n queued tasks were handled and
// completed.
func processLanes(b *testing.B, q *lanes.Queue, n int) time.Duration {
	b.Helper()
	var handled atomic.Int64
	w, err := lanes.NewWorker(q, lanes.HandlerFunc(func(context.Context, *lanes.Job) error {
		handled.Add(1)
		return nil
	}), &lanes.WorkerConfig{Concurrency: benchConcurrency, Logger: discardLog})
	require.NoError(b, err)
	start := time.Now()
	require.NoError(b, w.Start(ctx))
	waitHandled(&handled, n)
	for {
		st, err := q.Stats(ctx)
		require.NoError(b, err)
		if st.Waiting+st.Active == 0 {
			break
		}
		time.Sleep(time.Millisecond) // sleep: a benchmark's drain poll, fine-grained not to show in its timings
	}
	d := time.Since(start)
	require.NoError(b, w.Stop(ctx))
	require.Equal(b, int64(n), handled.Load())
	return d
}

// processAsynq runs an Asynq server until the n queued tasks were handled
// and acknowledged.
func processAsynq(b *testing.B, rs *echomqtest.Server, name string, n int) time.Duration {
	b.Helper()
	var handled atomic.Int64
	srv := asynq.NewServer(asynqOpt(rs), asynq.Config{
		Concurrency: benchConcurrency, Queues: map[string]int{name: 1}, LogLevel: asynq.FatalLevel,
	})
	insp := asynq.NewInspector(asynqOpt(rs))
	defer insp.Close()
	start := time.Now()
	require.NoError(b, srv.Start(asynq.HandlerFunc(func(context.Context, *asynq.Task) error {
		handled.Add(1)
		return nil
	})))
	waitHandled(&handled, n)
	for {
		info, err := insp.GetQueueInfo(name)
		require.NoError(b, err)
		if info.Pending == 0 && info.Active == 0 {
			break
		}
		time.Sleep(time.Millisecond) // sleep: a benchmark's drain poll, fine-grained not to show in its timings
	}
	d := time.Since(start)
	srv.Shutdown()
	return d
}

// waitHandled waits (without load on the engine) until every task reached
// its handler; the caller then waits for the last acknowledgements.
func waitHandled(handled *atomic.Int64, n int) {
	for handled.Load() < int64(n) {
		time.Sleep(time.Millisecond) // sleep: a benchmark's drain poll, fine-grained not to show in its timings
	}
}

func deleteAsynqQueue(b *testing.B, srv *echomqtest.Server, name string) {
	b.Helper()
	insp := asynq.NewInspector(asynqOpt(srv))
	defer insp.Close()
	if err := insp.DeleteQueue(name, true); err != nil {
		b.Log(fmt.Errorf("delete asynq queue %s: %w", name, err))
	}
}
