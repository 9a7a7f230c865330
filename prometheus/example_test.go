package emqprom_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/embedded"
	emqprom "github.com/echomq/echomq/prometheus"
)

// Register both collectors and mount /metrics: the hook-fed metrics go in
// the client's Config.Hooks, the scrape-time collector names the streams
// to read.
func Example() {
	ctx := context.Background()
	metrics := emqprom.NewMetrics(nil)
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, Hooks: []echomq.Hook{metrics}, Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	orders := client.Stream("shop", "orders")
	for range 3 {
		if _, err := orders.Append(ctx, echomq.F("sku", "A-1"), nil); err != nil {
			panic(err)
		}
	}
	if _, err := orders.Group("billing").Create(ctx, echomq.StartHead); err != nil {
		panic(err)
	}

	collector, err := emqprom.NewCollector(&emqprom.CollectorConfig{
		Client:  client,
		Streams: []emqprom.StreamRef{{Queue: "shop", Stream: "orders"}},
	})
	if err != nil {
		panic(err)
	}
	reg := prometheus.NewRegistry()
	if err := emqprom.Register(reg, metrics, collector); err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", emqprom.Handler(reg))

	srv := httptest.NewServer(mux)
	defer srv.Close()
	resp, err := http.Get(srv.URL + "/metrics")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
		line := sc.Text()
		for _, name := range []string{"echomq_appends_total", "echomq_stream_length", "echomq_group_lag{"} {
			if strings.HasPrefix(line, name) {
				fmt.Println(line)
			}
		}
	}
	// Output:
	// echomq_appends_total{queue="shop",stream="orders"} 3
	// echomq_group_lag{group="billing",queue="shop",stream="orders"} 3
	// echomq_stream_length{queue="shop",stream="orders"} 3
}

// A server's /metrics in one call: the hook-fed metrics and the collector
// with the Go runtime and process metrics beside them.
func ExampleNewHandler() {
	metrics := emqprom.NewMetrics(nil)
	client, err := echomq.Connect(context.Background(), &echomq.Config{URL: embedded.URL, Hooks: []echomq.Hook{metrics}, Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	collector, err := emqprom.NewCollector(&emqprom.CollectorConfig{Client: client})
	if err != nil {
		panic(err)
	}
	h, err := emqprom.NewHandler(metrics, collector)
	if err != nil {
		panic(err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", h)

	rec := httptest.NewRecorder()
	mux.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body := rec.Body.String()
	fmt.Println(rec.Code, strings.Contains(body, "go_goroutines"), strings.Contains(body, "echomq_scrape_duration_seconds"))
	// Output:
	// 200 true true
}
