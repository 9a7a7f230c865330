package retention_test

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/embedded"
	"github.com/echomq/echomq/retention"
)

// Keep the newest two entries of a stream, exactly.
func ExampleApply() {
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, NodeID: new(1), Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()
	s := client.Stream("cm", "room-opened")
	for _, room := range []string{"ROM1", "ROM2", "ROM3", "ROM4", "ROM5"} {
		if _, err := s.Append(ctx, echomq.F("room", room), nil); err != nil {
			panic(err)
		}
	}
	p, err := retention.ParsePolicy("cm/room-opened maxlen 2 exact")
	if err != nil {
		panic(err)
	}
	res, err := retention.Apply(ctx, client, p, time.Now())
	if err != nil {
		panic(err)
	}
	evs, _ := s.Read(ctx, echomq.All, nil)
	fmt.Println(res.Spec, "trimmed", res.Trimmed)
	for _, ev := range evs {
		fmt.Println(ev.Fields.Value("room"))
	}
	// Output:
	// MAXLEN = 2 trimmed 3
	// ROM4
	// ROM5
}
