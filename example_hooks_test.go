package echomq_test

import (
	"context"
	"fmt"
	"io"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/embedded"
)

// appendLog is a hook: it implements echomq.AppendHook.
type appendLog struct{}

func (appendLog) OnAppend(_ context.Context, a echomq.AppendInfo) {
	fmt.Printf("appended %d of %d to %s/%s, err: %v\n", a.Records-a.Failed, a.Records, a.Queue, a.Stream, a.Err != nil)
}

// Observe a client's appends with a hook of your own: any value that
// implements one or more of the hook interfaces.
func ExampleHook() {
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, Hooks: []echomq.Hook{appendLog{}}, Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	s := client.Stream("shop", "orders")
	_, _ = s.Append(ctx, echomq.F("sku", "A-1"), nil)
	_, _ = s.AppendBatch(ctx, []echomq.Fields{echomq.F("sku", "B-2"), echomq.F("sku", "C-3")}, nil)
	_, _ = s.Append(ctx, echomq.F("odd"), nil)
	fmt.Println(len(echomq.HooksOf[echomq.AppendHook](client)), len(echomq.HooksOf[echomq.TrimHook](client)))
	// Output:
	// appended 1 of 1 to shop/orders, err: false
	// appended 2 of 2 to shop/orders, err: false
	// appended 0 of 1 to shop/orders, err: true
	// 1 0
}

// A group's lag as EchoMQ counts it stays right after a trim.
func ExampleGroup_Lag() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()
	s := client.Stream("shop", "orders")
	for range 5 {
		if _, err := s.Append(ctx, echomq.F("sku", "A-1"), nil); err != nil {
			panic(err)
		}
	}
	g := s.Group("billing")
	if _, err := g.Create(ctx, echomq.StartHead); err != nil {
		panic(err)
	}
	if _, err := s.Trim(ctx, echomq.MaxLen(2).Exact()); err != nil {
		panic(err)
	}
	lag, err := g.Lag(ctx, 0)
	if err != nil {
		panic(err)
	}
	fmt.Println("lag", lag.Lag, "exact", lag.Exact, "pending", lag.Pending)
	// Output:
	// lag 2 exact true pending 0
}
