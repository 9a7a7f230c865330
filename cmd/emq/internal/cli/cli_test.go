package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/echomq/echomq/echomqtest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current output")

func TestMain(m *testing.M) {
	echomqtest.MainWithLeakCheck(m,
		// When a dial fails (TestRuntimeErrors), valkey-go schedules a
		// topology refresh after a random delay under a second, from a
		// goroutine of its own that ends by itself.
		goleak.IgnoreAnyFunction("github.com/valkey-io/valkey-go.(*call).DelayDo.func1"),
	)
}

// base is the fixed clock reading of the golden tests.
var base = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)

// testNode is the node id every golden test mints with.
const testNode = 7

// clock is a settable test clock.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.Set(t)
	return c
}

func (c *clock) Set(t time.Time) { c.ns.Store(t.UnixNano()) }
func (c *clock) Now() time.Time  { return time.Unix(0, c.ns.Load()).UTC() }

// bundle is one test's engine, queue, clock and transcript.
type bundle struct {
	t     *testing.T
	url   string // "" runs the embedded engine
	queue string
	clock *clock
	env   map[string]string
	stdin string
	tr    strings.Builder
	// inactive caches reportsInactive (nil until asked).
	inactive *bool
}

func setup(t *testing.T) *bundle {
	t.Helper()
	return &bundle{t: t, url: echomqtest.Shared(t).URL(), queue: echomqtest.Queue(t), clock: newClock(base)}
}

// setupEmbedded is a bundle on the embedded engine (no --url).
func setupEmbedded(t *testing.T) *bundle {
	t.Helper()
	return &bundle{t: t, queue: echomqtest.Queue(t), clock: newClock(base)}
}

func (b *bundle) options() *Options {
	return &Options{Clock: b.clock.Now, NodeID: new(testNode), Getenv: func(k string) string { return b.env[k] }}
}

// globals are the flags the harness adds in front of every command line;
// transcripts show the command line without them.
func (b *bundle) globals() []string {
	var g []string
	if b.queue != "" {
		g = append(g, "--queue", b.queue)
	}
	if b.url != "" {
		g = append(g, "--url", b.url)
	}
	return g
}

// runCtx runs emq with the harness' globals and returns its outputs.
func (b *bundle) runCtx(ctx context.Context, stdout io.Writer, args ...string) (stderr string, code int) {
	var errb bytes.Buffer
	code = Run(ctx, append(b.globals(), args...), strings.NewReader(b.stdin), stdout, &errb, b.options())
	return errb.String(), code
}

func (b *bundle) run(args ...string) (stdout, stderr string, code int) {
	var out bytes.Buffer
	stderr, code = b.runCtx(context.Background(), &out, args...)
	return out.String(), stderr, code
}

// must runs a command that must succeed and returns its stdout.
func (b *bundle) must(args ...string) string {
	b.t.Helper()
	out, errs, code := b.run(args...)
	require.Equal(b.t, ExitOK, code, "emq %s: %s", strings.Join(args, " "), errs)
	return out
}

// step runs a command and records it in the transcript.
func (b *bundle) step(args ...string) string {
	b.t.Helper()
	out, errs, code := b.run(args...)
	b.record(args, out, errs, code)
	return out
}

func (b *bundle) record(args []string, out, errs string, code int) {
	fmt.Fprintf(&b.tr, "$ emq %s\n%s", shellJoin(args), out)
	for line := range strings.Lines(errs) {
		fmt.Fprintf(&b.tr, "[stderr] %s", line)
	}
	fmt.Fprintf(&b.tr, "[exit %d]\n\n", code)
}

func (b *bundle) note(s string) { fmt.Fprintf(&b.tr, "# %s\n", s) }

// at sets the clock to base+d.
func (b *bundle) at(d time.Duration) *bundle { b.clock.Set(base.Add(d)); return b }

var (
	portRe   = regexp.MustCompile(`127\.0\.0\.1:\d+`)
	memRe    = regexp.MustCompile(`(memory\s+)\d+( bytes)`)
	memJSONr = regexp.MustCompile(`"memory_bytes":\d+`)
	// The engine's clock is real time even when the CLI's clock is fixed.
	clockRe     = regexp.MustCompile(`(engine clock\s+)\S+  top \S+ (ahead|behind)`)
	clockJSONRe = regexp.MustCompile(`"engine_time":"[^"]*","top_ahead_ms":-?\d+`)
)

// normalize removes what differs between runs: the random queue name, ports
// and the engine's memory accounting.
func (b *bundle) normalize(s string) string {
	if b.queue != "" {
		s = strings.ReplaceAll(s, b.queue, "QUEUE")
	}
	s = portRe.ReplaceAllString(s, "127.0.0.1:PORT")
	s = memRe.ReplaceAllString(s, "${1}N${2}")
	s = clockRe.ReplaceAllString(s, "${1}T  top D ${2}")
	s = clockJSONRe.ReplaceAllString(s, `"engine_time":"T","top_ahead_ms":D`)
	return memJSONr.ReplaceAllString(s, `"memory_bytes":N`)
}

// golden compares the transcript with testdata/<name>.golden (-update
// rewrites it).
func (b *bundle) golden(name string) {
	b.t.Helper()
	compareGolden(b.t, name, b.normalize(b.tr.String()))
}

var goldenMu sync.Mutex

func compareGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		goldenMu.Lock()
		defer goldenMu.Unlock()
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./internal/cli -update to create %s", path)
	require.Equal(t, string(want), got, "output differs from %s (go test ./internal/cli -update rewrites it)", path)
}

// shellJoin quotes the arguments that a shell would split or expand.
func shellJoin(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'()$*?[]{}<>|;&\\") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q[i] = a
	}
	return strings.Join(q, " ")
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// running is a command started in the background by [bundle.background].
type running struct {
	out  *syncBuffer
	done chan runResult
}

// runResult is how a background command ended.
type runResult struct {
	stderr string
	code   int
}

// background runs a command until ctx ends (as SIGINT ends it in a
// process); its stdout can be read while it runs.
func (b *bundle) background(ctx context.Context, args ...string) *running {
	r := &running{out: &syncBuffer{}, done: make(chan runResult, 1)}
	go func() {
		errs, code := b.runCtx(ctx, r.out, args...)
		r.done <- runResult{errs, code}
	}()
	return r
}

// lines counts the lines written so far.
func (r *running) lines() int { return strings.Count(r.out.String(), "\n") }

// wait returns how the command ended, failing the test if it has not
// within 20s.
func (r *running) wait(t *testing.T) runResult {
	t.Helper()
	select {
	case res := <-r.done:
		return res
	case <-time.After(20 * time.Second):
		t.Fatal("the command did not end")
		return runResult{}
	}
}
