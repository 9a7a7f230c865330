package echomq_test

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

// soakEnv reads a positive integer knob of the soak from the environment.
func soakEnv(t *testing.T, name string, def int) int {
	t.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	require.NoError(t, err, name)
	require.Positive(t, n, name)
	return n
}

// TestConsumerSoak: three consumer processes share a group while entries
// are appended and one of them is killed with SIGKILL about every second
// (then restarted, half the time under its name, so that it drains its own
// backlog, half the time under a new one, so that its peers must reclaim
// the dead name's entries). Every entry is handled at least once,
// none is lost, nothing stays pending, and every duplicate is an entry a
// killed process had handled. EMQ_SOAK_N (default 20000) sets the entry
// count and EMQ_SOAK_RATE (default 5000) the appends per second.
func TestConsumerSoak(t *testing.T) {
	t.Parallel()
	n := soakEnv(t, "EMQ_SOAK_N", 20000)
	rate := soakEnv(t, "EMQ_SOAK_RATE", 5000)
	e := newGroupEnv(t)
	e.create(t, "g")
	dir := t.TempDir()
	const minIdle = 500 * time.Millisecond
	procs := make([]*child, 3)
	files := make([]string, 3)
	for i := range procs {
		files[i] = filepath.Join(dir, "c"+itoa(i))
		procs[i] = spawnConsumer(t, e, e.url(t), "c"+itoa(i), "record", files[i], minIdle)
	}

	began := time.Now()
	appended := make(chan []echomq.ID, 1)
	go func() {
		var all []echomq.ID
		const batch = 100
		tick := time.NewTicker(time.Second * batch / time.Duration(rate))
		defer tick.Stop()
		for len(all) < n {
			<-tick.C
			recs := make([]echomq.Fields, min(batch, n-len(all)))
			for i := range recs {
				recs[i] = echomq.F("n", itoa(len(all)+i))
			}
			ids, err := e.stream.AppendBatch(ctx, recs, nil)
			if err != nil {
				t.Error(err)
				break
			}
			all = append(all, ids...)
		}
		appended <- all
	}()

	// Kill one consumer about every second until the appends are done.
	killed := map[string]bool{}
	renamed := 0
	var ids []echomq.ID
	for ids == nil {
		select {
		case ids = <-appended:
		case <-time.After(time.Duration(500+rand.IntN(1000)) * time.Millisecond):
			i := rand.IntN(len(procs))
			killed[strconv.Itoa(procs[i].cmd.Process.Pid)] = true
			procs[i].kill(t)
			name := "c" + itoa(i)
			if rand.IntN(2) == 0 {
				renamed++
				name += "r" + itoa(renamed)
			}
			procs[i] = spawnConsumer(t, e, e.url(t), name, "record", files[i], minIdle)
		}
	}
	produced := time.Since(began)
	require.Len(t, ids, n)
	waitFor(t, "everything handled and acked", func() bool { return e.pending(t, "g") == 0 && soakHandled(t, files) >= n })
	handled := time.Since(began)
	var wg sync.WaitGroup
	for _, p := range procs {
		wg.Go(func() { p.term(t) })
	}
	wg.Wait()

	byID := map[string][]string{} // id → pids that handled it
	for _, f := range files {
		fh, err := os.Open(f)
		require.NoError(t, err)
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			pid, id, ok := strings.Cut(sc.Text(), " ")
			require.True(t, ok, "torn record %q", sc.Text())
			byID[id] = append(byID[id], pid)
		}
		require.NoError(t, sc.Err())
		fh.Close()
	}
	dups := 0
	for _, id := range ids {
		pids, ok := byID[id.String()]
		require.True(t, ok, "entry %s lost", id)
		dups += len(pids) - 1
		survivors := 0
		for _, p := range pids {
			if !killed[p] {
				survivors++
			}
		}
		require.LessOrEqual(t, survivors, 1, "entry %s handled twice by processes that were never killed", id)
	}
	require.Len(t, byID, n, "nothing but the appended entries was handled")
	dead, err := e.stream.DeadLetters().Len(ctx)
	require.NoError(t, err)
	require.Zero(t, dead)
	t.Logf("soak: %d entries, 3 consumers, %d SIGKILLs (%d restarts under a new name), %d duplicates (%.3f%%), appended in %v, all handled after %v",
		n, len(killed), renamed, dups, 100*float64(dups)/float64(n), produced.Round(time.Millisecond), handled.Round(time.Millisecond))
}

// soakHandled counts the records written so far.
func soakHandled(t *testing.T, files []string) int {
	total := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		total += strings.Count(string(b), "\n")
	}
	return total
}
