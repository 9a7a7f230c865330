// Command getting-started is the program of docs/getting-started.md: each
// step of the tutorial is one file of it, included in the page verbatim.
// It runs on the engine named by EMQ_URL (redis://host:port), or on the
// embedded in-process engine when EMQ_URL is unset.
package main

import (
	"context"
	"io"
	"log"
	"os"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/embedded"
)

func main() {
	if err := run(context.Background(), os.Getenv("EMQ_URL"), "shop", os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// run plays every step on the queue of that name, writing what each one
// shows to out.
func run(ctx context.Context, url, queue string, out io.Writer) error {
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.Or(url)}) // "": the embedded engine
	if err != nil {
		return err
	}
	defer client.Close()

	start := time.Now()
	ids, err := placeOrders(ctx, client, queue, out) // step 1
	if err != nil {
		return err
	}
	if err := recentOrders(ctx, client, queue, start, out); err != nil { // step 2
		return err
	}
	if err := chargeOrders(ctx, client, queue, out); err != nil { // step 3
		return err
	}
	if err := ordersPerCustomer(ctx, client, queue, out); err != nil { // step 4
		return err
	}
	return shipOrder(ctx, client, queue, ids[0], out) // step 5
}
