package dcb_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/echomqtest"
)

const (
	raceEnv      = "EMQ_DCB_RACE"
	raceChildren = 16
	raceGroup    = 4 // children per overlapping query
	raceRounds   = 10
	raceSlot     = 300 * time.Millisecond
)

// TestRaceHelperProcess is not a test: it is one racer of TestRaceProcesses,
// configured by EMQ_DCB_* variables. In each round, at the round's instant,
// it decides "claim the round for my group" (read the group's claims; if
// none, append one on the condition that none came since) and, for its own
// disjoint query, "count my round" (always appends, conditioned on its own
// tag only). It writes one line per outcome to EMQ_DCB_FILE.
func TestRaceHelperProcess(t *testing.T) {
	t.Parallel()
	if os.Getenv(raceEnv) != "1" {
		t.Skip("runs only as a racer child process")
	}
	ctx := context.Background()
	c, err := echomq.Connect(ctx, &echomq.Config{URL: os.Getenv("EMQ_DCB_URL"), Notice: io.Discard})
	require.NoError(t, err)
	defer c.Close()
	s, err := dcb.New(c, os.Getenv("EMQ_DCB_QUEUE"))
	require.NoError(t, err)
	me, _ := strconv.Atoi(os.Getenv("EMQ_DCB_ME"))
	start, _ := strconv.ParseInt(os.Getenv("EMQ_DCB_START"), 10, 64)
	var out strings.Builder
	for r := range raceRounds {
		g := me / raceGroup
		tags := dcb.Tags("round", strconv.Itoa(r), "group", strconv.Itoa(g))
		q := dcb.Query{{Types: []string{"claimed"}, Tags: tags}}
		mine := dcb.Tags("round", strconv.Itoa(r), "racer", strconv.Itoa(me))
		qm := dcb.Query{{Types: []string{"counted"}, Tags: mine}}
		time.Sleep(time.Until(time.UnixMilli(start).Add(time.Duration(r) * raceSlot))) // sleep: every racer starts the round at the same instant
		evs, after, err := s.ReadAll(ctx, q, 0)
		require.NoError(t, err)
		_, afterMine, err := s.ReadAll(ctx, qm, 0)
		require.NoError(t, err)
		if len(evs) > 0 {
			fmt.Fprintf(&out, "%d %d saw %s\n", r, g, evs[0].ID)
		} else {
			got, err := s.Append(ctx, []dcb.Append{{Stream: "claimed", Tags: tags, Fields: echomq.F("racer", strconv.Itoa(me))}}, &dcb.Condition{Query: q, After: after})
			var ce *dcb.ConflictError
			switch {
			case err == nil:
				fmt.Fprintf(&out, "%d %d won %s\n", r, g, got[0].ID)
			case errors.As(err, &ce) && errors.Is(err, echomq.ErrConflict):
				fmt.Fprintf(&out, "%d %d conflict %s\n", r, g, ce.ID)
			default:
				require.NoError(t, err)
			}
		}
		_, err = s.Append(ctx, []dcb.Append{{Stream: "counted", Tags: mine}}, &dcb.Condition{Query: qm, After: afterMine})
		require.NoError(t, err, "a disjoint query never conflicts")
	}
	require.NoError(t, os.WriteFile(os.Getenv("EMQ_DCB_FILE"), []byte(out.String()), 0o644))
}

// TestRaceProcesses: 16 processes race conditional appends; per round and
// overlapping query exactly one wins and every other names the winner
// (as the conflict it met, or as the claim its read saw); the disjoint
// queries never conflict.
func TestRaceProcesses(t *testing.T) {
	t.Parallel()
	url := echomqtest.Shared(t).URL()
	q := echomqtest.Queue(t)
	dir := t.TempDir()
	start := time.Now().Add(2 * time.Second).UnixMilli() // every child is up by then
	type racer struct {
		wait func() error
		out  *syncBuffer
		file string
	}
	racers := make([]racer, raceChildren)
	for i := range racers {
		file := filepath.Join(dir, strconv.Itoa(i))
		cmd, out := child(t, "TestRaceHelperProcess", raceEnv+"=1", "EMQ_DCB_URL="+url, "EMQ_DCB_QUEUE="+q,
			"EMQ_DCB_ME="+strconv.Itoa(i), "EMQ_DCB_START="+strconv.FormatInt(start, 10), "EMQ_DCB_FILE="+file)
		racers[i] = racer{cmd.Wait, out, file}
	}
	won := map[string]string{}
	named := map[string][]string{}
	conflicts := 0
	for i, r := range racers {
		require.NoError(t, r.wait(), "racer %d: %s", i, r.out.String())
		b, err := os.ReadFile(r.file)
		require.NoError(t, err)
		for line := range strings.Lines(string(b)) {
			f := strings.Fields(line)
			key := f[0] + "/" + f[1]
			switch f[2] {
			case "won":
				require.Empty(t, won[key], "two winners in round/group %s", key)
				won[key] = f[3]
			case "conflict":
				conflicts++
				named[key] = append(named[key], f[3])
			case "saw":
				named[key] = append(named[key], f[3])
			}
		}
	}
	require.Len(t, won, raceRounds*raceChildren/raceGroup, "one winner per round and group")
	for key, ids := range named {
		require.Len(t, ids, raceGroup-1, key)
		for _, id := range ids {
			require.Equal(t, won[key], id, "the loser names the winner in %s", key)
		}
	}
	t.Logf("%d rounds x %d groups: %d losers met the conflict, %d saw the winner in their read",
		raceRounds, raceChildren/raceGroup, conflicts, raceRounds*raceChildren/raceGroup*(raceGroup-1)-conflicts)
	c := connect(t, url)
	s, err := dcb.New(c, q)
	require.NoError(t, err)
	evs, _, err := s.ReadAll(ctx, dcb.Query{{Types: []string{"counted"}, Tags: []string{"round=0"}}}, 0)
	require.NoError(t, err)
	require.Len(t, evs, raceChildren)
	requireIndexed(t, c, q)
}
