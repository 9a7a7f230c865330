package main

import (
	"context"
	"fmt"
	"io"

	"github.com/echomq/echomq"
)

// OrderShipped is an event as a Go type: a typed view appends and reads
// values of it, one stream field per property (JSON names).
type OrderShipped struct {
	Order   string `json:"order"`
	Carrier string `json:"carrier"`
	Parcels int    `json:"parcels"`
}

// shipOrder appends an OrderShipped for the order and reads the stream
// back as values.
func shipOrder(ctx context.Context, client *echomq.Client, queue string, order echomq.ID, out io.Writer) error {
	shipped := echomq.NewTyped[OrderShipped](client.Stream(queue, "order-shipped"), nil, nil)
	if _, err := shipped.Append(ctx, OrderShipped{Order: order.String(), Carrier: "dhl", Parcels: 2}, nil); err != nil {
		return err
	}
	evs, err := shipped.Read(ctx, echomq.All, nil)
	if err != nil {
		return err
	}
	for _, ev := range evs {
		fmt.Fprintf(out, "order %s shipped by %s in %d parcels\n", ev.Value.Order, ev.Value.Carrier, ev.Value.Parcels)
	}
	return nil
}
