package main

import (
	"context"
	"fmt"
	"io"

	"github.com/echomq/echomq"
)

// placeOrders appends four orders to the stream "order-placed" of the
// queue: one stream per event type, created by its first append. Each
// append returns the event's id, minted by this program: it is the
// receipt, and it orders the stream.
func placeOrders(ctx context.Context, client *echomq.Client, queue string, out io.Writer) ([]echomq.ID, error) {
	orders := client.Stream(queue, "order-placed")
	var ids []echomq.ID
	for _, o := range [][2]string{{"ada", "42"}, {"bo", "250"}, {"ada", "17"}, {"cy", "99"}} {
		id, err := orders.Append(ctx, echomq.F("customer", o[0], "total", o[1]), nil)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(out, "placed %s: %s for %s\n", id, o[1], o[0])
		ids = append(ids, id)
	}
	return ids, nil
}
