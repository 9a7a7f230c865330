package rawcmd_test

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/embedded"
	"github.com/echomq/echomq/rawcmd"
)

// Look at a stream the way an operator would: its type and length, with
// the key EchoMQ built for it.
func ExampleDo() {
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, NodeID: new(1), Notice: io.Discard})
	if err != nil {
		panic(err)
	}
	defer client.Close()

	s := client.Stream("cm", "room-opened")
	if _, err := s.Append(ctx, echomq.F("room", "dogs"), nil); err != nil {
		panic(err)
	}
	kind, _ := rawcmd.Do(ctx, client, "TYPE", s.Key())
	n, _ := rawcmd.Do(ctx, client, "XLEN", s.Key())
	fmt.Println(kind, n)
	_ = client.Close()
	_, err = rawcmd.Do(ctx, client, "PING")
	fmt.Println(errors.Is(err, echomq.ErrClosed))
	// Output:
	// stream 1
	// true
}
