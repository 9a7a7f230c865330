package echomq_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/echomq/echomq"
)

// A durable append waits until replicas hold the event. The embedded
// engine has no replica: the event is written, and the append says it is
// short of the replicas asked for; retrying with the same key is safe.
func ExampleDurability() {
	ctx := context.Background()
	client := exampleClient()
	defer client.Close()

	orders := client.Stream("shop", "order-placed")
	opts := &echomq.AppendOpts{Key: "order-1001", Durable: echomq.Durability{Replicas: 1, Timeout: 100 * time.Millisecond}}
	id, err := orders.Append(ctx, echomq.F("order", "1001"), opts)
	if de, ok := errors.AsType[*echomq.DurabilityError](err); ok {
		fmt.Println("written:", id == de.Receipts[0], "acknowledged by", de.Acked, "of", de.Want, "replicas via", de.Cmd)
	}
	again, err := orders.Append(ctx, echomq.F("order", "1001"), opts)
	fmt.Println("retry returns the same receipt:", again == id, errors.Is(err, echomq.ErrNotDurable))
	// Output:
	// written: true acknowledged by 0 of 1 replicas via WAIT
	// retry returns the same receipt: true true
}
