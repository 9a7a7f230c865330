package cli_test

import (
	"context"
	"fmt"
	"os"

	"github.com/echomq/echomq/cmd/emq/internal/cli"
)

// Run is the whole tool behind one call: arguments in, output and an exit
// code out. Decoding an id needs no engine.
func ExampleRun() {
	code := cli.Run(context.Background(), []string{"--json", "id", "decode", "EVT000xY9Wvvcd"}, nil, os.Stdout, os.Stderr, nil)
	fmt.Println("exit", code)
	code = cli.Run(context.Background(), []string{"id", "decode", "EVT000xY9Wvvc"}, nil, os.Stdout, os.Stdout, nil)
	fmt.Println("exit", code)
	// Output:
	// {"ids":[{"id":"EVT000xY9Wvvcd","brand":"EVT","snowflake":"209715201620567","time":"2024-01-01T13:53:20.000Z","unix_ms":1704117200000,"node":395,"seq":2647,"entry":"1704117200000-1620567"}]}
	// exit 0
	// emq: malformed id "EVT000xY9Wvvc": length 13, want 14
	// exit 2
}
