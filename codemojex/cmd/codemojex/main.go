// Command codemojex serves the codemojex game (crack the 6-emoji code) over
// EchoMQ, or plays simulated players against it. Run "codemojex --help";
// docs/codemojex.md describes the game, its events and its API.
//
// Exit codes: 0 ok, 1 failure, 2 bad command line.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/echomq/echomq/codemojex/app"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := app.Execute(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
