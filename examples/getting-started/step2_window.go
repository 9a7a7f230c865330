package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/echomq/echomq"
)

// recentOrders reads the orders placed since start: a time window is a
// range of ids, so the read goes straight to it without scanning the rest
// of the stream.
func recentOrders(ctx context.Context, client *echomq.Client, queue string, start time.Time, out io.Writer) error {
	recent, err := client.Stream(queue, "order-placed").Read(ctx, echomq.Window(start, time.Now()), nil)
	if err != nil {
		return err
	}
	for _, ev := range recent {
		fmt.Fprintf(out, "%s  %s  %s %s\n", ev.ID, ev.Time().Format(time.TimeOnly),
			ev.Fields.Value("customer"), ev.Fields.Value("total"))
	}
	fmt.Fprintf(out, "%d orders in the window\n", len(recent))
	return nil
}
