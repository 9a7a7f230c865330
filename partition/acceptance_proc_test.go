package partition_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/internal/keyspace"
	"github.com/echomq/echomq/partition"
)

const memberHelperEnv = "EMQ_PARTITION_MEMBER"

// Timing of the acceptance run's members: a killed member's partitions
// move within LeaseTTL + 2 × Beat.
const (
	accBeat     = 100 * time.Millisecond
	accLeaseTTL = 2 * time.Second
)

// TestMemberHelperProcess is not a test: it is the body of a child process
// that runs one member (EMQ_PM_NAME) of group "g" over the partitioned
// stream EMQ_PM_QUEUE/orders and writes, one line per write, to
// EMQ_PM_DIR/<name>.log:
//
//	G <member> <partition> <token> <unix ns>   a partition gained
//	L <member> <partition> <token> <unix ns>   a partition given up
//	H <member> <partition> <token> <key> <n> <start ns> <end ns>   a delivery handled
//
// SIGTERM stops it gracefully.
func TestMemberHelperProcess(t *testing.T) {
	t.Parallel()
	if os.Getenv(memberHelperEnv) != "1" {
		t.Skip("runs only as a child process")
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	c, err := echomq.Connect(ctx, &echomq.Config{URL: os.Getenv("EMQ_PM_URL")})
	if err != nil && ctx.Err() != nil {
		return // SIGTERM while connecting: a graceful stop before anything was taken
	}
	require.NoError(t, err)
	defer c.Close()
	s, err := partition.Open(ctx, c, os.Getenv("EMQ_PM_QUEUE"), "orders")
	if err != nil && ctx.Err() != nil {
		return // SIGTERM while starting: as above
	}
	require.NoError(t, err)
	name := os.Getenv("EMQ_PM_NAME")
	f, err := os.OpenFile(filepath.Join(os.Getenv("EMQ_PM_DIR"), name+".log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	require.NoError(t, err)
	defer f.Close()
	var mu sync.Mutex
	write := func(line string) error {
		mu.Lock()
		defer mu.Unlock()
		_, err := f.WriteString(line)
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	m, err := s.Member(&partition.MemberConfig{
		Group: "g", Name: name, Start: echomq.StartHead, Beat: accBeat, LeaseTTL: accLeaseTTL, Logger: logger,
		Consumer: &echomq.ConsumerConfig{Beat: 100 * time.Millisecond, Logger: logger},
		OnChange: func(ch partition.Change) {
			kind := "L"
			if ch.Gained {
				kind = "G"
			}
			_ = write(fmt.Sprintf("%s %s %d %d %d\n", kind, ch.Member, ch.Partition, ch.Token, ch.At.UnixNano()))
		},
		Handle: func(ctx context.Context, d echomq.Delivery) error {
			start := time.Now().UnixNano()
			l, _ := partition.LeaseOf(ctx)
			return write(fmt.Sprintf("H %s %d %d %s %s %d %d\n", l.Member, l.Partition, l.Token,
				d.Fields.Value("key"), d.Fields.Value("n"), start, time.Now().UnixNano()))
		},
	})
	require.NoError(t, err)
	require.NoError(t, m.Run(ctx))
}

type memberProc struct {
	cmd  *exec.Cmd
	out  *echomqtest.Buffer
	done chan struct{}
}

func spawnMember(t *testing.T, url, q, dir, name string) *memberProc {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestMemberHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), memberHelperEnv+"=1", "EMQ_PM_URL="+url, "EMQ_PM_QUEUE="+q, "EMQ_PM_DIR="+dir, "EMQ_PM_NAME="+name)
	out := &echomqtest.Buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlives the test binary
	require.NoError(t, cmd.Start())
	p := &memberProc{cmd: cmd, out: out, done: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGKILL)
		echomqtest.Recv(t, p.done, time.Minute, "a member process to die of SIGKILL")
	})
	return p
}

func (p *memberProc) kill(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	echomqtest.Recv(t, p.done, time.Minute, "a member process to die of SIGKILL")
}

func (p *memberProc) term(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	echomqtest.Recv(t, p.done, time.Minute, "a member process to stop on SIGTERM")
}

// record is one line of a member's log.
type record struct {
	kind       string
	member     string
	part       int
	token      int64
	key        string
	n          int
	start, end int64
}

func readRecords(t *testing.T, dir string) []record {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.log"))
	require.NoError(t, err)
	var out []record
	for _, name := range files {
		f, err := os.Open(name)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			if len(fs) < 5 || (fs[0] == "H" && len(fs) != 8) {
				continue // a line cut by SIGKILL
			}
			r := record{kind: fs[0], member: fs[1]}
			r.part, _ = strconv.Atoi(fs[2])
			r.token, _ = strconv.ParseInt(fs[3], 10, 64)
			if r.kind == "H" {
				r.key = fs[4]
				r.n, _ = strconv.Atoi(fs[5])
				r.start, _ = strconv.ParseInt(fs[6], 10, 64)
				r.end, _ = strconv.ParseInt(fs[7], 10, 64)
			} else {
				r.start, _ = strconv.ParseInt(fs[4], 10, 64)
				r.end = r.start
			}
			out = append(out, r)
		}
		require.NoError(t, f.Close())
	}
	return out
}

// TestAcceptanceCluster is the acceptance run of key-ordered consumption: a
// stream of 8 partitions on a 3-master cluster, 4 member processes of one
// group, one SIGKILLed and one added mid-run, N events over 1,000 keys
// (EMQ_PARTITION_N, default 20,000; the documented full run is 100,000).
// Checked from the handlers' own logs: every event handled at least once,
// per key in order, and no partition handled under two leases at once; the
// rebalance times are logged.
func TestAcceptanceCluster(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a cluster and five processes")
	}
	n := 20000
	if v := os.Getenv("EMQ_PARTITION_N"); v != "" {
		var err error
		n, err = strconv.Atoi(v)
		require.NoError(t, err)
	}
	const keys = 1000
	cl := echomqtest.StartCluster(t)
	c := connect(t, cl.URL())
	q := echomqtest.Queue(t)
	s, err := partition.Create(ctx, c, q, "orders", 8)
	require.NoError(t, err)
	dir := t.TempDir()
	procs := map[string]*memberProc{}
	for i := range 4 {
		name := "w" + strconv.Itoa(i)
		procs[name] = spawnMember(t, cl.URL(), q, dir, name)
	}

	// Writers: each key belongs to one writer, so its events are appended
	// in the order of n.
	const writers = 4
	var killedAt, addedAt time.Time
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	progress := make([]int, writers)
	var pmu sync.Mutex
	for w := range writers {
		wg.Go(func() {
			for i := w; i < n; i += writers {
				key := "k" + strconv.Itoa(i%keys)
				if _, err := s.Append(ctx, key, echomq.F("key", key, "n", strconv.Itoa(i/keys)), nil); err != nil {
					errs <- err
					return
				}
				pmu.Lock()
				progress[w]++
				pmu.Unlock()
			}
		})
	}
	appended := func() int {
		pmu.Lock()
		defer pmu.Unlock()
		sum := 0
		for _, p := range progress {
			sum += p
		}
		return sum
	}
	echomqtest.WaitFor(t, 5*time.Minute, "a third of the events appended", func() bool { return appended() >= n/3 })
	procs["w1"].kill(t)
	killedAt = time.Now()
	echomqtest.WaitFor(t, 5*time.Minute, "two thirds of the events appended", func() bool { return appended() >= 2*n/3 })
	procs["w4"] = spawnMember(t, cl.URL(), q, dir, "w4")
	addedAt = time.Now()
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	t.Logf("appended %d events", n)

	// The partitions spread over the masters (each master owns a third of
	// the slot space), and a merged read on the cluster returns every event
	// in id order.
	perMaster := make([]int, 3)
	for _, p := range s.All() {
		perMaster[keyspace.Slot(p.Key())*3/16384]++
	}
	require.ElementsMatch(t, []int{3, 3, 2}, perMaster)
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, n)
	for i := 1; i < len(evs); i++ {
		require.Negative(t, evs[i-1].Entry.Compare(evs[i].Entry))
	}

	handled := func() int {
		seen := map[string]bool{}
		for _, r := range readRecords(t, dir) {
			if r.kind == "H" {
				seen[r.key+"/"+strconv.Itoa(r.n)] = true
			}
		}
		return len(seen)
	}
	echomqtest.WaitFor(t, 5*time.Minute, "every event handled", func() bool { return handled() == n })
	for name, p := range procs {
		if name != "w1" {
			p.term(t)
		}
	}
	checkAcceptance(t, readRecords(t, dir), n, keys, killedAt, addedAt)
}

func checkAcceptance(t *testing.T, recs []record, n, keys int, killedAt, addedAt time.Time) {
	t.Helper()
	dups, handoffs := checkHandled(t, recs, n, keys)
	lastGainAfterKill, firstGainOfNew, orphaned := rebalanceTimes(recs, killedAt, addedAt)
	t.Logf("%d events, %d duplicate deliveries, %d hand-offs; killed member's partitions re-held %v after the kill (bound %v); new member's first partition %v after its start",
		n, dups, handoffs, lastGainAfterKill, accLeaseTTL+2*accBeat, firstGainOfNew)
	require.Empty(t, orphaned, "every partition of the killed member was taken over")
	require.Positive(t, firstGainOfNew, "the added member took part")
}

// checkHandled checks the handlers' records: every one of n events over
// the given keys handled at least once; per key, an event first handled only
// after every earlier one; per partition, the deliveries under successive
// fencing tokens in disjoint time intervals. It returns the duplicate
// deliveries and the hand-offs seen.
func checkHandled(t *testing.T, recs []record, n, keys int) (dups, handoffs int) {
	t.Helper()
	var hs []record
	for _, r := range recs {
		if r.kind == "H" {
			hs = append(hs, r)
		}
	}
	slices.SortStableFunc(hs, func(a, b record) int { return int(a.start - b.start) })

	// Every event at least once; per key, an event is first handled only
	// after every earlier event of its key.
	next := map[string]int{}
	for _, r := range hs {
		switch want := next[r.key]; {
		case r.n == want:
			next[r.key]++
		case r.n < want:
			dups++
		default:
			t.Fatalf("key %s: event %d handled before event %d", r.key, r.n, want)
		}
	}
	total := 0
	for _, v := range next {
		total += v
	}
	require.Equal(t, n, total, "every event handled")
	require.Len(t, next, keys)

	// Per partition, the deliveries under each fencing token lie in a time
	// interval, and the intervals of successive tokens do not overlap: no
	// two members handled a partition at once.
	type span struct{ lo, hi int64 }
	spans := map[int]map[int64]*span{}
	for _, r := range hs {
		if spans[r.part] == nil {
			spans[r.part] = map[int64]*span{}
		}
		sp := spans[r.part][r.token]
		if sp == nil {
			spans[r.part][r.token] = &span{r.start, r.end}
			continue
		}
		sp.lo, sp.hi = min(sp.lo, r.start), max(sp.hi, r.end)
	}
	for part, byTok := range spans {
		toks := make([]int64, 0, len(byTok))
		for tok := range byTok {
			toks = append(toks, tok)
		}
		slices.Sort(toks)
		for i := 1; i < len(toks); i++ {
			a, b := byTok[toks[i-1]], byTok[toks[i]]
			require.Less(t, a.hi, b.lo, "partition %d: token %d handled until %d, token %d from %d", part, toks[i-1], a.hi, toks[i], b.lo)
			handoffs++
		}
	}

	return dups, handoffs
}

// rebalanceTimes returns how long after the kill every partition the
// killed member held had a new holder (and those that never did), and how
// long after the addition the new member held its first partition.
func rebalanceTimes(recs []record, killedAt, addedAt time.Time) (lastGainAfterKill, firstGainOfNew time.Duration, orphaned map[int]bool) {
	held := map[int]string{}
	slices.SortStableFunc(recs, func(a, b record) int { return int(a.start - b.start) })
	for _, r := range recs {
		at := time.Unix(0, r.start)
		switch r.kind {
		case "G":
			if orphaned != nil && orphaned[r.part] {
				delete(orphaned, r.part)
				lastGainAfterKill = at.Sub(killedAt)
			}
			if r.member == "w4" && firstGainOfNew == 0 {
				firstGainOfNew = at.Sub(addedAt)
			}
			held[r.part] = r.member
		case "L":
			delete(held, r.part)
		}
		if orphaned == nil && !at.Before(killedAt) {
			orphaned = map[int]bool{}
			for p, m := range held {
				if m == "w1" {
					orphaned[p] = true
				}
			}
		}
	}
	return lastGainAfterKill, firstGainOfNew, orphaned
}
