package cli

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

var (
	idleRe      = regexp.MustCompile(`\b(\d+h)?(\d+m)?\d+(\.\d+)?(ms|s)\b`)
	idleFullRe  = regexp.MustCompile(`^(\d+h)?(\d+m)?\d+(\.\d+)?(ms|s)$`)
	idleJSONRe  = regexp.MustCompile(`"idle_ms":\d+`)
	inactJSONRe = regexp.MustCompile(`"inactive_ms":(\d+|null)`)
	spacesRe    = regexp.MustCompile(` {2,}`)
)

// inactiveCell stands for a consumer's inactive time in a golden: a
// duration on an engine that reports it (Redis 7.2 and later, every Valkey),
// "-" (JSON null) on one that does not (Redis 7.0). normIdle checks which
// of the two the engine gave before it writes the token, so the golden
// holds for every engine without checking less on any.
const inactiveCell = "INACTIVE?"

// reportsInactive says whether the test's engine reports a consumer's
// inactive time in XINFO CONSUMERS (added in Redis 7.2; every Valkey has
// it).
func (b *bundle) reportsInactive() bool {
	b.t.Helper()
	if b.inactive == nil {
		v, err := echomqtest.Shared(b.t).Version()
		require.NoError(b.t, err)
		known := v.RedisAtLeast(7, 2)
		b.inactive = &known
	}
	return *b.inactive
}

// normIdle removes the idle and inactive times, which run on the engine's
// clock, from a command's output, and aligns the table cells again (two
// spaces or more part cells; the widths changed). An inactive time must be
// what the engine can give (known: it reports them; see inactiveCell):
// each one that is not is a problem.
func normIdle(s string, known bool) (norm string, problems []string) {
	s = idleJSONRe.ReplaceAllString(s, `"idle_ms":N`)
	s = inactJSONRe.ReplaceAllStringFunc(s, func(m string) string {
		if got := !strings.HasSuffix(m, "null"); got != known {
			problems = append(problems, fmt.Sprintf("%s, but the engine reports inactive times: %v", m, known))
		}
		return `"inactive_ms":` + inactiveCell
	})
	var sb strings.Builder
	tw := table(&sb)
	col := -1 // the INACTIVE column of the table being read
	for line := range strings.Lines(s) {
		cells := spacesRe.Split(strings.TrimSuffix(line, "\n"), -1)
		switch {
		case strings.TrimSpace(line) == "":
			col = -1
		case slices.Contains(cells, "INACTIVE"):
			col = slices.Index(cells, "INACTIVE")
		case col >= 0 && col < len(cells):
			if got := idleFullRe.MatchString(cells[col]); got != known || !got && cells[col] != "-" {
				problems = append(problems, fmt.Sprintf("inactive time %q, but the engine reports inactive times: %v", cells[col], known))
			}
			cells[col] = inactiveCell
		}
		for i, c := range cells {
			cells[i] = idleRe.ReplaceAllString(c, "IDLE")
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	return sb.String(), problems
}

// stepIdle is step for a command whose output shows idle times.
func (b *bundle) stepIdle(args ...string) {
	b.t.Helper()
	out, errs, code := b.run(args...)
	norm, problems := normIdle(out, b.reportsInactive())
	for _, p := range problems {
		b.t.Errorf("emq %s: %s", strings.Join(args, " "), p)
	}
	b.record(args, norm, errs, code)
}

// stepConsume is step for a consume that stops by itself (--max): a run
// that does not is cut off after a while, so the test fails on its output
// instead of hanging.
func (b *bundle) stepConsume(args ...string) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.t.Context(), 15*time.Second)
	defer cancel()
	var out bytes.Buffer
	errs, code := b.runCtx(ctx, &out, args...)
	if ctx.Err() != nil {
		errs += "consume did not stop by itself\n"
	}
	b.record(args, out.String(), errs, code)
}

func TestGroupGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ids := b.seed("orders", 0, 2)
	b.step("group", "create", "orders", "billing", "--start", "head")
	b.step("group", "create", "orders", "billing", "--start", "new")
	b.step("--json", "group", "create", "orders", "audit", "--start", "new")
	b.step("group", "list", "orders")
	b.note("c1 handles the first entry and fails the second, which stays pending")
	b.stepConsume("consume", "orders", "billing", "--name", "c1", "--fail-every", "2", "--max", "2", "--beat", "20ms")
	b.stepIdle("group", "info", "orders", "billing")
	b.stepIdle("--json", "group", "info", "orders", "billing")
	b.stepIdle("group", "pending", "orders", "billing")
	b.stepIdle("--json", "group", "pending", "orders", "billing", "--consumer", "c1", "--from", ids[1])
	b.note("a consumer that owns pending entries is not removed")
	b.step("group", "delete-consumer", "orders", "billing", "c1")
	b.step("group", "claim", "orders", "billing", "c2", "--owner", "c1")
	b.step("--json", "group", "claim", "orders", "billing", "c2", ids[1])
	b.step("group", "delete-consumer", "orders", "billing", "c1")
	b.step("--json", "group", "delete-consumer", "orders", "billing", "c1")
	b.note("c2 delivers what it was given when it starts: the second delivery")
	b.stepConsume("consume", "orders", "billing", "--name", "c2", "--max", "1", "--beat", "20ms")
	b.stepIdle("group", "info", "orders", "billing")
	b.stepIdle("--json", "group", "list", "orders")
	b.note("three more entries, then a trim that removes two of them before billing read them: the engine's")
	b.note("lag still counts the trimmed ones (or is unknown), EchoMQ's is the one entry above the last delivered id")
	b.seed("orders", 10*time.Second, 3)
	b.step("trim", "orders", "--maxlen", "1", "--exact")
	b.stepIdle("group", "info", "orders", "billing")
	b.stepIdle("group", "list", "orders")
	b.note("a missing group exits 3; a missing stream has no groups")
	b.step("group", "info", "orders", "nope")
	b.step("group", "pending", "orders", "nope")
	b.step("group", "claim", "orders", "nope", "c2", "--owner", "c1")
	b.step("group", "delete-consumer", "orders", "nope", "c1")
	b.step("--json", "group", "list", "missing")
	b.golden("group")
}

// normIdle takes an inactive time only in the form the engine can give:
// a duration where it reports them, "-" (null) where it does not.
func TestNormIdleChecksInactive(t *testing.T) {
	t.Parallel()
	tbl := "CONSUMER  PENDING  IDLE  INACTIVE\nc1        1        15ms  %s\n\nA  B\nx  -\n"
	doc := `{"consumers":[{"name":"c1","pending":1,"idle_ms":15,"inactive_ms":%s}]}` + "\n"
	want := "CONSUMER  PENDING  IDLE  INACTIVE\nc1        1        IDLE  INACTIVE?\n\nA  B\nx  -\n"
	for _, c := range []struct {
		cell, num string
		known     bool
	}{{"1m2.5s", "62500", true}, {"-", "null", false}} {
		got, problems := normIdle(fmt.Sprintf(tbl, c.cell), c.known)
		require.Empty(t, problems)
		require.Equal(t, want, got)
		got, problems = normIdle(fmt.Sprintf(doc, c.num), c.known)
		require.Empty(t, problems)
		require.Equal(t, `{"consumers":[{"name":"c1","pending":1,"idle_ms":N,"inactive_ms":INACTIVE?}]}`+"\n", got) //nolint:testifylint // a normalised line with placeholders, not JSON

		_, problems = normIdle(fmt.Sprintf(tbl, c.cell), !c.known)
		require.Len(t, problems, 1, "a %q cell where the engine reports: %v", c.cell, !c.known)
		_, problems = normIdle(fmt.Sprintf(doc, c.num), !c.known)
		require.Len(t, problems, 1, "%s where the engine reports: %v", c.num, !c.known)
	}
	_, problems := normIdle(fmt.Sprintf(tbl, "soon"), false)
	require.Len(t, problems, 1, "neither a duration nor -")
}

// usageCase is one bad command line: exit 2, one line, nothing written.
type usageCase struct {
	name string
	args []string
}

func requireUsage(t *testing.T, b *bundle, cases []usageCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, errs, code := b.run(tc.args...)
			require.Equal(t, ExitUsage, code, "stderr: %s", errs)
			require.Empty(t, out)
			require.True(t, strings.HasPrefix(errs, "emq: ") && strings.HasSuffix(errs, "\n"), "%q", errs)
			require.Equal(t, 1, strings.Count(errs, "\n"), "%q", errs)
			require.NotContains(t, errs, "echomq:", "the library prefix is dropped")
		})
	}
	t.Cleanup(func() {
		// Nothing was written: no stream, no group, no dead letter.
		if _, errs, code := b.run("info", "s"); code != ExitNotFound {
			t.Errorf("info s: exit %d (%s), want %d", code, errs, ExitNotFound)
		}
		if out := b.must("--json", "dead", "list", "s"); !strings.Contains(out, `"count":0`) {
			t.Errorf("dead list s: %s", out)
		}
	})
}

func TestGroupBadArguments(t *testing.T) {
	t.Parallel()
	requireUsage(t, setup(t), []usageCase{
		{"unknown subcommand", []string{"group", "destroy", "s", "g"}},
		{"create without start", []string{"group", "create", "s", "g"}},
		{"create bad start", []string{"group", "create", "s", "g", "--start", "tail"}},
		{"create bad group name", []string{"group", "create", "s", "a b", "--start", "new"}},
		{"create bad stream name", []string{"group", "create", "a:b", "g", "--start", "new"}},
		{"create one argument", []string{"group", "create", "s", "--start", "new"}},
		{"list bad stream", []string{"group", "list", "a/b"}},
		{"list two streams", []string{"group", "list", "s", "t"}},
		{"info without group", []string{"group", "info", "s"}},
		{"info bad group", []string{"group", "info", "s", "g{x}"}},
		{"pending bad consumer", []string{"group", "pending", "s", "g", "--consumer", "x y"}},
		{"pending zero count", []string{"group", "pending", "s", "g", "-n", "0"}},
		{"pending negative min idle", []string{"group", "pending", "s", "g", "--min-idle=-1s"}},
		{"pending bad min idle", []string{"group", "pending", "s", "g", "--min-idle", "soon"}},
		{"pending bad bound", []string{"group", "pending", "s", "g", "--from", "yesterday"}},
		{"pending inverted range", []string{"group", "pending", "s", "g", "--from", "+5m", "--to", "-5m"}},
		{"claim without selector", []string{"group", "claim", "s", "g", "c"}},
		{"claim bad entry", []string{"group", "claim", "s", "g", "c", "nope"}},
		{"claim entry of another brand", []string{"group", "claim", "s", "g", "c", "JOB0KHTOWnGLuC"}},
		{"claim entries and owner", []string{"group", "claim", "s", "g", "c", "1-0", "--owner", "x"}},
		{"claim entries and count", []string{"group", "claim", "s", "g", "c", "1-0", "-n", "5"}},
		{"claim bad target", []string{"group", "claim", "s", "g", "c/d", "--owner", "x"}},
		{"claim bad owner", []string{"group", "claim", "s", "g", "c", "--owner", "x y"}},
		{"claim negative min idle", []string{"group", "claim", "s", "g", "c", "--min-idle=-1s"}},
		{"claim zero count", []string{"group", "claim", "s", "g", "c", "--owner", "x", "-n", "0"}},
		{"delete-consumer without consumer", []string{"group", "delete-consumer", "s", "g"}},
		{"delete-consumer bad consumer", []string{"group", "delete-consumer", "s", "g", "a b"}},
	})
}
