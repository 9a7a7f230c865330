package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/echomq/echomq"
)

// chargeOrders runs a consumer group "billing" over the orders. Its
// handler declines orders above 100: a failed delivery stays pending and
// is delivered again after MinIdle, and after MaxDeliveries failures the
// order moves to the stream's dead letters, where it waits to be looked
// at, replayed or purged.
func chargeOrders(ctx context.Context, client *echomq.Client, queue string, out io.Writer) error {
	c, err := client.Consumer(&echomq.ConsumerConfig{
		Queue: queue, Stream: "order-placed", Group: "billing",
		Start:         echomq.StartHead,       // a new group reads the stream from its first event
		MaxDeliveries: 3,                      // the third failure moves the order to the dead letters
		MinIdle:       200 * time.Millisecond, // retry a failed order after 200ms (default 30s)
		Beat:          100 * time.Millisecond,
		Handle: func(ctx context.Context, d echomq.Delivery) error {
			customer, total := d.Fields.Value("customer"), d.Fields.Value("total")
			if n, _ := strconv.Atoi(total); n > 100 {
				fmt.Fprintf(out, "delivery %d of %s: declined\n", d.Attempts, d.ID)
				return fmt.Errorf("card declined: %s for %s", total, customer)
			}
			fmt.Fprintf(out, "charged %s for %s\n", total, customer)
			return nil // acknowledged: never delivered again
		},
	})
	if err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil { // runs in the background until Stop
		return err
	}
	dead := client.Stream(queue, "order-placed").DeadLetters()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if n, err := dead.Len(ctx); err != nil || n > 0 {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("no dead letter within 10s")
		}
	}
	if err := c.Stop(ctx); err != nil {
		return err
	}
	letters, err := dead.List(ctx, echomq.All, nil)
	if err != nil {
		return err
	}
	for _, l := range letters {
		fmt.Fprintf(out, "dead letter %s: order %s after %d deliveries: %s\n", l.ID, l.Origin, l.Attempts, l.Error)
	}
	return nil
}
