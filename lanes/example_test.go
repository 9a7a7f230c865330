package lanes_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/embedded"
	"github.com/echomq/echomq/lanes"
)

// exampleClient connects to the embedded engine.
func exampleClient() *echomq.Client {
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: embedded.URL, NodeID: new(1), Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	return c
}

func ExampleQueue_Enqueue() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()
	q, err := lanes.New(client, "cm", nil)
	if err != nil {
		panic(err)
	}

	// Each player's guesses go on the player's lane.
	for _, g := range []string{"guess-1", "guess-2"} {
		if _, err := q.Enqueue(ctx, "PLR0KHTOWnGLuC", []byte(g), nil); err != nil {
			panic(err)
		}
	}
	id, err := q.Enqueue(ctx, "PLR0KHTOWnGLuD", []byte("guess-3"), nil)
	if err != nil {
		panic(err)
	}
	fmt.Println(id.Brand())

	// Enqueueing the same id again is refused as a duplicate.
	_, err = q.Enqueue(ctx, "PLR0KHTOWnGLuD", []byte("again"), &lanes.EnqueueOpts{ID: id})
	fmt.Println(errors.Is(err, lanes.ErrDuplicate))

	st, err := q.Stats(ctx)
	if err != nil {
		panic(err)
	}
	fmt.Println(st.Waiting, "waiting on", st.Lanes, "lanes")
	// Output:
	// JOB
	// true
	// 3 waiting on 2 lanes
}

func ExampleQueue_Claim() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()
	q, err := lanes.New(client, "cm", nil)
	if err != nil {
		panic(err)
	}
	for _, p := range []struct{ lane, payload string }{{"a", "a1"}, {"a", "a2"}, {"b", "b1"}} {
		if _, err := q.Enqueue(ctx, p.lane, []byte(p.payload), nil); err != nil {
			panic(err)
		}
	}
	// One job per lane per turn; a lane holds one job in flight by default,
	// so a2 waits for a1.
	jobs, err := q.Claim(ctx, 10, time.Minute)
	if err != nil {
		panic(err)
	}
	for _, j := range jobs {
		fmt.Println(j.Lane, string(j.Payload), j.Attempt)
		if err := q.Complete(ctx, j); err != nil {
			panic(err)
		}
	}
	jobs, err = q.Claim(ctx, 10, time.Minute)
	if err != nil {
		panic(err)
	}
	for _, j := range jobs {
		fmt.Println(j.Lane, string(j.Payload), j.Attempt)
	}
	// Output:
	// a a1 1
	// b b1 1
	// a a2 1
}

func ExampleWorker() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()
	q, err := lanes.New(client, "cm", nil)
	if err != nil {
		panic(err)
	}
	for _, g := range []string{"g1", "g2", "g3"} {
		if _, err := q.Enqueue(ctx, "PLR0KHTOWnGLuC", []byte(g), nil); err != nil {
			panic(err)
		}
	}

	var mu sync.Mutex
	var done sync.WaitGroup
	done.Add(3)
	var order []string
	w, err := lanes.NewWorker(q, lanes.HandlerFunc(func(ctx context.Context, job *lanes.Job) error {
		mu.Lock()
		defer mu.Unlock()
		if string(job.Payload) == "g2" && job.Attempt == 1 {
			// A failed attempt holds the lane: g3 cannot overtake g2.
			return lanes.RetryAfter(10*time.Millisecond, errors.New("scoreboard busy"))
		}
		order = append(order, fmt.Sprintf("%s#%d", job.Payload, job.Attempt))
		done.Done()
		return nil
	}), &lanes.WorkerConfig{Concurrency: 4, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		panic(err)
	}
	if err := w.Start(ctx); err != nil {
		panic(err)
	}
	done.Wait()
	if err := w.Stop(ctx); err != nil {
		panic(err)
	}
	fmt.Println(order)
	// Output:
	// [g1#1 g2#2 g3#1]
}
