// Command emq appends to, reads and inspects EchoMQ streams, decodes and
// mints branded ids, and plays a demo story. Run "emq --help" for the
// commands, "emq COMMAND --help" for one, and see docs/cli.md.
//
// Exit codes: 0 ok, 1 runtime or engine error, 2 bad command line,
// 3 not found.
package main

import (
	"os"

	"github.com/echomq/echomq/cmd/emq/internal/cli"
)

func main() {
	os.Exit(cli.Execute(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
