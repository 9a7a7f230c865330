package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/embedded"
)

// defaultQueue is the queue of the stream commands when --queue is not given.
const defaultQueue = "app"

// app holds one invocation's inputs and global flags.
type app struct {
	opts           Options
	stdin          io.Reader
	stdout, stderr io.Writer

	url   string
	queue string
	json  bool
	node  int // -1: not given
	// interop is --interop (or EMQ_INTEROP): the version fence.
	interop bool
	// allowEviction connects to an engine that evicts (info --engine
	// reports such an engine instead of failing on it).
	allowEviction bool
}

// nodeFlag is --node: an int whose unset value (-1) prints as "", so the
// help shows no misleading "(default -1)".
type nodeFlag int

func (f *nodeFlag) String() string {
	if *f < 0 {
		return ""
	}
	return strconv.Itoa(int(*f))
}

func (f *nodeFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want an integer 0..%d", maxNode)
	}
	*f = nodeFlag(n)
	return nil
}

func (f *nodeFlag) Type() string { return "int" }

const rootLong = `emq appends to, reads, inspects and folds (emq project) EchoMQ streams, trims them
by policy and archives them (emq retention, emq archive), runs and administers
consumer groups and their dead letters, inspects and controls lanes job queues
(emq lanes), and serves a web dashboard with Prometheus metrics (emq ui), on a
Valkey or Redis server.

Engine: --url, or the EMQ_URL environment variable, names the server
(redis://host:port[/db], rediss:// for TLS, valkey://). When both are empty
emq runs on an embedded in-process engine that lives only as long as the
command: nothing survives between two invocations (fine for "emq demo" and
the id commands, useless for keeping data).

Times (window, since, --from/--to, --minid): RFC3339 ("2024-06-01T12:00:00Z",
fractions allowed), a date ("2024-06-01", midnight UTC), "now", or a duration
relative to now ("-1h", "-90s", "now-15m", "+5m").

Output: aligned tables; --json writes one JSON document instead (tail --follow
writes one JSON object per line). An event is
{"id","entry","time","fields":{...}} with the fields in stored order.

Exit codes:
  0  ok
  1  runtime or engine error (unreachable, refused, wrong key type)
  2  bad command line, decided before any I/O; one line "emq: <message>" on stderr
  3  not found (a missing stream, group, consumer or dead letter)
  4  conflict: a conditional append (append --if-none) found an event matching
     its condition after its position; nothing was written`

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:                "emq",
		Short:              "Append to, read and inspect EchoMQ streams",
		Long:               rootLong,
		SilenceErrors:      true,
		SilenceUsage:       true,
		DisableSuggestions: true, // suggestions span several lines; errors are one line
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			source := "--url"
			if !cmd.Flags().Changed("url") {
				a.url, source = a.opts.Getenv("EMQ_URL"), "EMQ_URL"
			}
			if err := checkURL(a.url); err != nil {
				return usagef("invalid %s: %v", source, err) // not echoed: it may hold a password
			}
			if !cmd.Flags().Changed("interop") {
				if v := a.opts.Getenv("EMQ_INTEROP"); v != "" {
					on, err := strconv.ParseBool(v)
					if err != nil {
						return usagef("invalid EMQ_INTEROP %q: want true or false", v)
					}
					a.interop = on
				}
			}
			if cmd.Flags().Changed("node") && (a.node < 0 || a.node > maxNode) {
				return usagef("invalid --node %d: want 0..%d", a.node, maxNode)
			}
			return nil
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err: err} })
	pf := root.PersistentFlags()
	pf.StringVar(&a.url, "url", "", "engine URL (default $EMQ_URL; empty: the embedded engine, gone when emq exits)")
	pf.StringVarP(&a.queue, "queue", "q", defaultQueue, "queue of the streams")
	pf.BoolVar(&a.json, "json", false, "write one JSON document instead of a table")
	pf.BoolVar(&a.interop, "interop", false, "honour the original EchoMQ's version fence {emq}:version (default $EMQ_INTEROP)")
	pf.Var((*nodeFlag)(&a.node), "node", "node id 0..1023 stamped into minted ids (default: leased from the engine)")
	root.AddCommand(a.appendCommand(), a.readCommand(), a.windowCommand(), a.sinceCommand(),
		a.tailCommand(), a.trimCommand(), a.infoCommand(), a.idCommand(), a.demoCommand(),
		a.projectCommand(), a.groupCommand(), a.consumeCommand(), a.deadCommand(),
		a.retentionCommand(), a.archiveCommand(), a.lanesCommand(), a.uiCommand(), a.replayCommand(), a.followCommand(), a.queryCommand(), a.partitionCommand())
	return root
}

// checkURL refuses, before any I/O, an engine URL that cannot name an
// engine; the engine client reports everything finer when it dials.
func checkURL(raw string) error {
	if raw == "" {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return errors.New("not a URL")
	}
	switch u.Scheme {
	case "redis", "rediss", "valkey", "valkeys", "unix":
		return nil
	}
	return errors.New("want redis://host:port, rediss://, valkey://, valkeys:// or unix://")
}

// body wraps a command's body: its errors are runtime errors unless typed
// otherwise (see exitCode).
func body(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := fn(cmd, args); err != nil {
			return &runError{err: err}
		}
		return nil
	}
}

// argsRange checks the positional argument count against the command's
// synopsis, so the message names what is missing.
func argsRange(lo, hi int) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < lo || hi >= 0 && len(args) > hi {
			path := strings.TrimPrefix(cmd.CommandPath(), "emq ")
			want := "no arguments"
			if _, synopsis, ok := strings.Cut(cmd.Use, " "); ok {
				want = synopsis
			}
			return usagef("%s takes %s (got %d argument%s)", path, want, len(args), plural(len(args)))
		}
		return nil
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// checkStream validates the queue and stream names before any I/O. A handle
// made from the zero Client does no I/O; it only runs the name grammar.
func (a *app) checkStream(name string) error {
	return new(echomq.Client).Stream(a.queue, name).Err()
}

// nodeID returns --node, else the injected node id, else nil (leased).
func (a *app) nodeID() *int {
	if a.node >= 0 {
		return new(a.node)
	}
	return a.opts.NodeID
}

// connect opens the engine. notice receives the embedded-engine notice.
func (a *app) connect(ctx context.Context, notice io.Writer) (*echomq.Client, error) {
	return echomq.Connect(ctx, &echomq.Config{
		URL:           embedded.Or(a.url),
		NodeID:        a.nodeID(),
		Interop:       a.interop,
		Clock:         a.opts.Clock,
		AllowEviction: a.allowEviction,
		ClientName:    "emq",
		Notice:        notice,
		Logger:        slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
}

// withStream connects, runs fn on the stream handle and closes the client.
func (a *app) withStream(ctx context.Context, name string, fn func(*echomq.Stream) error) error {
	return a.withClient(ctx, func(c *echomq.Client) error { return fn(c.Stream(a.queue, name)) })
}

// withClient connects, runs fn on the client and closes it; a failed close
// is the error when fn succeeded.
func (a *app) withClient(ctx context.Context, fn func(*echomq.Client) error) (err error) {
	c, err := a.connect(ctx, a.stderr)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := c.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	return fn(c)
}
