package cli

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/lanes"
)

// engineTimeRe matches the times the lanes scripts stamp from the engine's
// clock; they are replaced by a placeholder of the same width, so tables
// stay aligned.
var engineTimeRe = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`)

// stepLanes is step for a lanes command: its times run on the engine clock.
func (b *bundle) stepLanes(args ...string) string {
	b.t.Helper()
	out, errs, code := b.run(args...)
	b.record(args, engineTimeRe.ReplaceAllString(out, "YYYY-MM-DDThh:mm:ss.sssZ"), errs, code)
	return out
}

// lanesQueue opens the test's lanes queue with the Go API, to claim and
// settle jobs as a worker would.
func (b *bundle) lanesQueue() *lanes.Queue {
	b.t.Helper()
	c, err := echomq.Connect(b.t.Context(), &echomq.Config{URL: b.url, NodeID: new(9), Clock: b.clock.Now})
	require.NoError(b.t, err)
	b.t.Cleanup(func() { _ = c.Close() })
	q, err := lanes.New(c, b.queue, nil)
	require.NoError(b.t, err)
	return q
}

func TestLanesGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	ctx := context.Background()
	b.note("enqueue prints the JOB id; each run mints with the clock one second on")
	b.at(0).step("lanes", "enqueue", "PLR-a", `{"guess":"🍕"}`)
	b.at(time.Second).step("lanes", "enqueue", "PLR-a", "second guess")
	b.at(2*time.Second).step("--json", "lanes", "enqueue", "PLR-b", "b1")
	b.stdin = "from stdin"
	b.at(3*time.Second).step("lanes", "enqueue", "PLR-c", "-", "--max-attempts", "2")
	b.stdin = ""
	b.at(4*time.Second).step("lanes", "enqueue", "PLR-d", "later", "--delay", "1h")
	b.step("lanes", "enqueue", "PLR-b", "mine", "--id", "JOB0KHTOWnGLuC")
	b.note("an id held by a live job is refused: exit 1, nothing written")
	b.step("lanes", "enqueue", "PLR-b", "again", "--id", "JOB0KHTOWnGLuC")
	b.step("lanes", "stats")
	b.step("--json", "lanes", "stats")
	b.stepLanes("lanes", "lanes")
	b.note("waiting jobs across the queue come lane by lane, the lanes in no set order (not shown)")
	require.Equal(t, 5, strings.Count(b.must("lanes", "jobs"), "waiting"))
	b.stepLanes("lanes", "jobs", "--lane", "PLR-b")
	b.stepLanes("--json", "lanes", "jobs", "--lane", "PLR-a")
	b.stepLanes("lanes", "jobs", "--state", "delayed")
	b.stepLanes("lanes", "jobs", "--state", "waiting", "--lane", "PLR-a", "--offset", "1", "-n", "1")

	b.note("a worker claims one job of each lane: it fails PLR-a's (backoff holds the lane),")
	b.note("cancels PLR-b's (dead at once) and keeps PLR-c's")
	q := b.lanesQueue()
	jobs, err := q.Claim(ctx, 3, time.Minute)
	require.NoError(t, err)
	require.Len(t, jobs, 3)
	byLane := map[string]*lanes.Job{}
	for _, j := range jobs {
		byLane[j.Lane] = j
	}
	st, err := q.Fail(ctx, byLane["PLR-a"], time.Hour, errors.New("scorer down"))
	require.NoError(t, err)
	require.Equal(t, lanes.StateBackoff, st)
	require.NoError(t, q.Kill(ctx, byLane["PLR-b"], errors.New("bad guess")))
	b.step("lanes", "stats")
	b.stepLanes("lanes", "lanes")
	b.stepLanes("lanes", "lanes", "PLR-a", "never-used")
	b.stepLanes("lanes", "jobs", "--state", "active")
	b.stepLanes("lanes", "jobs", "--state", "backoff")
	b.stepLanes("lanes", "jobs", "--lane", "PLR-a")
	b.stepLanes("lanes", "dead")
	b.stepLanes("lanes", "job", byLane["PLR-a"].ID.String())
	b.stepLanes("--json", "lanes", "job", byLane["PLR-b"].ID.String())
	b.stepLanes("lanes", "job", byLane["PLR-c"].ID.String())

	b.note("retry puts a dead job at the tail of its lane; a job not dead, or missing, is refused")
	dead := byLane["PLR-b"].ID.String()
	b.step("lanes", "retry", dead, byLane["PLR-c"].ID.String())
	b.step("lanes", "retry", dead, "JOB0KHTOWnGLuD")
	b.step("lanes", "retry", dead)
	b.step("lanes", "retry", dead)
	b.stepLanes("--json", "lanes", "dead")
	b.note("dead delete removes dead jobs for good")
	jobs, err = q.Claim(ctx, 1, time.Minute)
	require.NoError(t, err)
	require.Len(t, jobs, 1)
	require.NoError(t, q.Kill(ctx, jobs[0], errors.New("cancelled")))
	b.step("lanes", "dead", "delete", byLane["PLR-c"].ID.String())
	b.step("--json", "lanes", "dead", "delete", "--all")
	b.step("lanes", "dead", "delete", "--all")
	b.step("lanes", "job", jobs[0].ID.String())

	b.note("pause and resume the queue or one lane")
	b.step("lanes", "pause")
	b.step("lanes", "pause")
	b.step("--json", "lanes", "pause", "--lane", "PLR-a")
	b.step("lanes", "resume")
	b.step("lanes", "resume")
	b.stepLanes("lanes", "lanes", "PLR-a")
	b.step("lanes", "resume", "--lane", "PLR-a")
	b.step("--json", "lanes", "stats")
	b.golden("lanes")
}

func TestLanesBadArguments(t *testing.T) {
	t.Parallel()
	const job = "JOB0KHTOWnGLuC"
	b := setup(t)
	requireUsage(t, b, []usageCase{
		{"unknown subcommand", []string{"lanes", "drain"}},
		{"stats with argument", []string{"lanes", "stats", "x"}},
		{"bad queue", []string{"-q", "a b", "lanes", "stats"}},
		{"reserved queue", []string{"-q", "emq", "lanes", "jobs"}},
		{"lanes empty lane", []string{"lanes", "lanes", ""}},
		{"lanes control character", []string{"lanes", "lanes", "a\x01"}},
		{"lanes zero count", []string{"lanes", "lanes", "-n", "0"}},
		{"jobs unknown state", []string{"lanes", "jobs", "--state", "finished"}},
		{"jobs completed", []string{"lanes", "jobs", "--state", "completed"}},
		{"jobs empty lane", []string{"lanes", "jobs", "--lane", ""}},
		{"jobs lane with dead", []string{"lanes", "jobs", "--lane", "a", "--state", "dead"}},
		{"jobs negative offset", []string{"lanes", "jobs", "--offset", "-1"}},
		{"jobs zero count", []string{"lanes", "jobs", "-n", "0"}},
		{"jobs count over max", []string{"lanes", "jobs", "-n", "1001"}},
		{"jobs with argument", []string{"lanes", "jobs", "a"}},
		{"job without id", []string{"lanes", "job"}},
		{"job of another brand", []string{"lanes", "job", "EVT0DqulWYZktk"}},
		{"job short id", []string{"lanes", "job", "JOB123"}},
		{"job entry id", []string{"lanes", "job", "1748779200000-0"}},
		{"dead with argument", []string{"lanes", "dead", "x"}},
		{"dead zero count", []string{"lanes", "dead", "-n", "0"}},
		{"dead delete without ids", []string{"lanes", "dead", "delete"}},
		{"dead delete ids and all", []string{"lanes", "dead", "delete", job, "--all"}},
		{"dead delete non-JOB id", []string{"lanes", "dead", "delete", "EVT0DqulWYZktk"}},
		{"dead delete twice", []string{"lanes", "dead", "delete", job, job}},
		{"retry without ids", []string{"lanes", "retry"}},
		{"retry ids and all", []string{"lanes", "retry", job, "--all"}},
		{"retry non-JOB id", []string{"lanes", "retry", job, "PLR0KHTOWnGLuC"}},
		{"retry bad id", []string{"lanes", "retry", "nope"}},
		{"pause empty lane", []string{"lanes", "pause", "--lane", ""}},
		{"resume empty lane", []string{"lanes", "resume", "--lane", ""}},
		{"pause with argument", []string{"lanes", "pause", "a"}},
		{"enqueue without payload", []string{"lanes", "enqueue", "a"}},
		{"enqueue empty lane", []string{"lanes", "enqueue", "", "p"}},
		{"enqueue non-JOB id", []string{"lanes", "enqueue", "a", "p", "--id", "EVT0DqulWYZktk"}},
		{"enqueue negative delay", []string{"lanes", "enqueue", "a", "p", "--delay=-1s"}},
		{"enqueue bad delay", []string{"lanes", "enqueue", "a", "p", "--delay", "soon"}},
		{"enqueue attempts over max", []string{"lanes", "enqueue", "a", "p", "--max-attempts", "1001"}},
		{"enqueue negative attempts", []string{"lanes", "enqueue", "a", "p", "--max-attempts=-1"}},
		{"enqueue payload over limit", []string{"lanes", "enqueue", "a", strings.Repeat("x", 1<<20+1)}},
	})
	t.Cleanup(func() {
		// Nothing was written to the lanes queue either.
		if out := b.must("--json", "lanes", "stats"); !strings.Contains(out, `"enqueued":0`) || !strings.Contains(out, `"paused":false`) {
			t.Errorf("lanes stats: %s", out)
		}
	})
}
