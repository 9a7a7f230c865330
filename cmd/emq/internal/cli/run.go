package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/echomq/echomq"
)

// Exit codes emq returns; scripts may rely on them.
const (
	// ExitOK is success.
	ExitOK = 0
	// ExitError is a runtime failure: the engine is unreachable, refused the
	// request (a wrong-type key, an appended id not above the stream top) or
	// failed.
	ExitError = 1
	// ExitUsage is a bad command line, decided before any I/O.
	ExitUsage = 2
	// ExitNotFound is a lookup of something that does not exist.
	ExitNotFound = 3
	// ExitConflict is a conditional append (emq append --if-none) refused:
	// an event matching its condition lies after its position; nothing
	// was written.
	ExitConflict = 4
)

// Options are the process-level inputs of [Run] that tests replace; nil
// means the defaults.
type Options struct {
	// Clock stamps minted ids and anchors relative times ("now", "-1h").
	// Defaults to time.Now.
	Clock echomq.Clock
	// NodeID is the node id used when --node is not given. Defaults to nil:
	// the node id is leased from the engine.
	NodeID *int
	// Getenv reads the environment (EMQ_URL). Defaults to os.Getenv.
	Getenv func(string) string
}

func (o *Options) withDefaults() Options {
	var r Options
	if o != nil {
		r = *o
	}
	if r.Clock == nil {
		r.Clock = time.Now
	}
	if r.Getenv == nil {
		r.Getenv = os.Getenv
	}
	return r
}

// Execute runs emq as a process: it cancels on SIGINT or SIGTERM (a
// following tail then ends cleanly) and returns the exit code for os.Exit.
func Execute(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Run(ctx, args, stdin, stdout, stderr, nil)
}

// Run runs the emq command line args (without the program name) and returns
// its exit code: [ExitOK], [ExitError], [ExitUsage], [ExitNotFound] or
// [ExitConflict]. Every
// failure is reported as one line "emq: <message>" on stderr; results go to
// stdout. It is safe to call concurrently.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, opts *Options) int {
	args = relativeArgs(args) // never nil: cobra reads os.Args when given nil
	// Several goroutines write (the client's engine watcher and a follower
	// log to stderr while the command prints): one write at a time, so a
	// caller's writer need not be safe for concurrent use.
	stdout, stderr = &lockedWriter{w: stdout}, &lockedWriter{w: stderr}
	a := &app{opts: opts.withDefaults(), stdin: stdin, stdout: stdout, stderr: stderr, node: -1}
	root := a.rootCommand()
	plainBools(root)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := exitCode(err)
	fmt.Fprintln(stderr, "emq: "+oneLine(err))
	return code
}

// relDuration is a negative duration argument such as -1h or -1h30m.
var relDuration = regexp.MustCompile(`^-([0-9]+(\.[0-9]*)?(ns|us|µs|ms|s|m|h))+$`)

// relativeArgs rewrites "-1h" to its synonym "now-1h": the flag parser would
// take an argument that starts with "-" for a flag ("unknown shorthand flag
// '1'"), and no flag of emq is a digit. As the value of a flag (--from -1h)
// the synonym means the same.
func relativeArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if relDuration.MatchString(a) {
			a = "now" + a
		}
		out[i] = a
	}
	return out
}

// usageError is a bad command line found by emq itself or by cobra.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// notFoundError is a lookup of something that does not exist.
type notFoundError struct{ what string }

func (e *notFoundError) Error() string { return e.what + " not found" }

// runError marks an error returned by a command's body, so that anything
// else cobra returns (unknown command, wrong argument count) is a usage error.
type runError struct{ err error }

func (e *runError) Error() string { return e.err.Error() }
func (e *runError) Unwrap() error { return e.err }

// exitCode classifies err. The library's typed argument errors are usage
// errors: the library raises them before any I/O, so they are about the
// command line, never about the engine's state.
func exitCode(err error) int {
	var (
		u  *usageError
		nf *notFoundError
		ce *conflictError
		r  *runError
		ne *echomq.NameError
		ie *echomq.IDError
		ke *echomq.KindError
		re *echomq.RangeError
		ae *echomq.ArgumentError
		fe *echomq.FieldError
	)
	switch {
	case errors.As(err, &u), errors.As(err, &ne), errors.As(err, &ie), errors.As(err, &ke),
		errors.As(err, &re), errors.As(err, &ae), errors.As(err, &fe):
		return ExitUsage
	case errors.As(err, &nf):
		return ExitNotFound
	case errors.As(err, &ce):
		return ExitConflict
	case errors.As(err, &r):
		return ExitError
	default:
		return ExitUsage // cobra's own errors: argument counts, unknown commands
	}
}

// oneLine renders err as one line without the library's "echomq: " prefix.
func oneLine(err error) string {
	s := strings.TrimPrefix(err.Error(), "echomq: ")
	s = strings.ReplaceAll(s, "echomq: ", "")
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(strings.TrimSpace(s))
}

// lockedWriter serialises the writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
