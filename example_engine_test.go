package echomq_test

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/embedded"
)

// What Connect learnt of the engine: the embedded engine never evicts and
// has no memory limit. On a real engine a program checks the headroom, and
// branches on a full engine instead of retrying it as an outage.
func ExampleClient_Engine() {
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: embedded.URL, NodeID: new(1), Notice: io.Discard})
	if err != nil {
		// An evicting engine (errors.Is(err, echomq.ErrEvictingEngine)) or
		// a user who may not run scripts (echomq.ErrScriptsDenied) ends here.
		panic(err)
	}
	defer client.Close()
	e := client.Engine()
	_, limited := e.Headroom()
	fmt.Println(e.Name, e.Policy, "evicting:", e.Evicting(), "limited:", limited, "scripts:", e.Scripts)

	_, err = client.Stream("shop", "orders").Append(ctx, echomq.F("sku", "A-1"), nil)
	if errors.Is(err, echomq.ErrEngineFull) {
		fmt.Println("engine full: back off until the archive trims")
	}
	// Output:
	// embedded noeviction evicting: false limited: false scripts: true
}
