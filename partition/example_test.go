package partition_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/embedded"
	"github.com/echomq/echomq/partition"
	"github.com/echomq/echomq/projection"
	"github.com/echomq/echomq/retention"
)

// exampleClient connects to an embedded engine with a clock that ticks a
// millisecond per reading and a fixed node id, so the examples print the
// same ids every run.
func exampleClient() *echomq.Client {
	start := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	tick := 0
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		tick++
		return start.Add(time.Duration(tick) * time.Millisecond)
	}
	c, err := echomq.Connect(context.Background(), &echomq.Config{URL: embedded.URL, Clock: clock, NodeID: new(1), Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	return c
}

// A stream of four partitions: appends keyed by customer go to the
// customer's partition, and reads merge the partitions in id order.
func ExampleCreate() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	orders, err := partition.Create(ctx, client, "shop", "orders", 4)
	if err != nil {
		panic(err)
	}
	for _, o := range [][2]string{{"ada", "tea"}, {"bob", "cake"}, {"ada", "scone"}, {"cy", "jam"}} {
		if _, err := orders.Append(ctx, o[0], echomq.F("customer", o[0], "item", o[1]), nil); err != nil {
			panic(err)
		}
	}
	evs, err := orders.Read(ctx, echomq.All, nil)
	if err != nil {
		panic(err)
	}
	for _, ev := range evs {
		c := ev.Fields.Value("customer")
		fmt.Println(c, ev.Fields.Value("item"), "partition", orders.Route(c))
	}
	fmt.Println(orders.Partition(orders.Route("ada")).Queue())
	// Output:
	// ada tea partition 3
	// bob cake partition 0
	// ada scone partition 3
	// cy jam partition 1
	// shop.emq-p3of4-2
}

// Route is the stable routing function every writer shares.
func ExampleRoute() {
	for _, key := range []string{"ada", "bob", "cy"} {
		fmt.Println(key, partition.Route(key, 8))
	}
	// Output:
	// ada 3
	// bob 4
	// cy 1
}

// Merged reads span each partition's archive and live tail: fold the
// oldest events of every partition into an archive, then read the whole
// stream back through the archive's reader.
func ExampleStream_Through() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()
	dir, _ := os.MkdirTemp("", "partition-example")
	defer os.RemoveAll(dir)

	orders, err := partition.Create(ctx, client, "shop", "orders", 2)
	if err != nil {
		panic(err)
	}
	for i, c := range []string{"ada", "bob", "cy", "dee", "ed", "flo"} {
		if _, err := orders.Append(ctx, c, echomq.F("customer", c, "n", strconv.Itoa(i)), nil); err != nil {
			panic(err)
		}
	}
	store, err := fsstore.New(dir)
	if err != nil {
		panic(err)
	}
	arch, err := archive.New(client, store, nil)
	if err != nil {
		panic(err)
	}
	for _, p := range orders.All() {
		if _, err := arch.Cycle(ctx, archive.Policy{Queue: p.Queue(), Stream: p.Name(), Keep: retention.MaxLen(1)}); err != nil {
			panic(err)
		}
	}
	live, _ := orders.Read(ctx, echomq.All, nil)
	whole := orders.Through(func(p *echomq.Stream) projection.Source { return archive.NewReader(store, p) })
	evs, err := whole.Read(ctx, echomq.All, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("live", len(live), "whole", len(evs))
	for _, ev := range evs {
		fmt.Print(ev.Fields.Value("n"), " ")
	}
	fmt.Println()
	// Output:
	// live 2 whole 6
	// 0 1 2 3 4 5
}

// Two members of one group share the partitions; each key is handled by
// one member at a time, in order.
func ExampleStream_Member() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()
	orders, err := partition.Create(ctx, client, "shop", "orders", 4)
	if err != nil {
		panic(err)
	}
	var mu sync.Mutex
	seen := map[string][]string{}
	done := make(chan struct{})
	handle := func(_ context.Context, d echomq.Delivery) error {
		mu.Lock()
		defer mu.Unlock()
		c := d.Fields.Value("customer")
		seen[c] = append(seen[c], d.Fields.Value("item"))
		if n := len(seen["ada"]) + len(seen["bob"]); n == 4 {
			close(done)
		}
		return nil
	}
	rctx, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for _, name := range []string{"m1", "m2"} {
		m, err := orders.Member(&partition.MemberConfig{
			Group: "billing", Name: name, Start: echomq.StartHead, Handle: handle, Beat: 20 * time.Millisecond, Logger: slog.New(slog.DiscardHandler),
			Consumer: &echomq.ConsumerConfig{Logger: slog.New(slog.DiscardHandler)},
		})
		if err != nil {
			panic(err)
		}
		wg.Go(func() { _ = m.Run(rctx) })
	}
	for _, o := range [][2]string{{"ada", "tea"}, {"bob", "cake"}, {"ada", "scone"}, {"bob", "jam"}} {
		if _, err := orders.Append(ctx, o[0], echomq.F("customer", o[0], "item", o[1]), nil); err != nil {
			panic(err)
		}
	}
	select {
	case <-done:
	case <-time.After(time.Minute):
		fmt.Println("timed out")
	}
	stop()
	wg.Wait()
	keys := []string{"ada", "bob"}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Println(k, seen[k])
	}
	// Output:
	// ada [tea scone]
	// bob [cake jam]
}

// GroupState reads a group from outside it: here no member has joined yet,
// so no partition has a holder, and the group's lag is every event.
func ExampleStream_GroupState() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	orders, err := partition.Create(ctx, client, "shop", "orders", 2)
	if err != nil {
		panic(err)
	}
	for _, c := range []string{"ada", "bob", "cy"} {
		if _, err := orders.Append(ctx, c, echomq.F("customer", c), nil); err != nil {
			panic(err)
		}
		if _, err := orders.Partition(orders.Route(c)).Group("billing").Create(ctx, echomq.StartHead); err != nil {
			panic(err)
		}
	}
	st, err := orders.GroupState(ctx, "billing")
	if err != nil {
		panic(err)
	}
	fmt.Println("members:", len(st.Members))
	for _, p := range st.Partitions {
		fmt.Printf("partition %d holder %q lag %d\n", p.Partition, p.Owner, p.Lag.Lag)
	}
	// Output:
	// members: 0
	// partition 0 holder "" lag 1
	// partition 1 holder "" lag 2
}
