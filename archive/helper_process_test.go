package archive_test

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/retention"
)

// helperMain runs the archiver child process of the crash tests when the
// test binary is re-executed as one (EMQ_ARCHIVE_HELPER=1): one cycle of
// EMQ_QUEUE/EMQ_STREAM into the fsstore at EMQ_DIR, keeping EMQ_KEEP
// entries live, reporting each step on stdout and killing itself with
// SIGKILL as EMQ_CRASH says:
//
//	"<step>[:n]"  at the n-th (default first) passing of the step
//	"trimming"    a moment after the trim was sent: during the trim
//	"random:<µs>" after that many microseconds, wherever the cycle is
//	""            never
//
// It never returns when it ran.
func helperMain() bool {
	if os.Getenv("EMQ_ARCHIVE_HELPER") != "1" {
		return false
	}
	os.Exit(runHelper())
	return true
}

func runHelper() int {
	ctx := context.Background()
	kill := func() { _ = syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	crash := os.Getenv("EMQ_CRASH")
	crashStep, nth := crash, 1
	if name, n, ok := strings.Cut(crash, ":"); ok {
		crashStep = name
		nth, _ = strconv.Atoi(n)
	}
	if crashStep == "random" {
		go func() { time.Sleep(time.Duration(nth) * time.Microsecond); kill() }() // sleep: a random moment to crash at
	}
	c, err := echomq.Connect(ctx, &echomq.Config{URL: os.Getenv("EMQ_URL"), NodeID: new(1000), Notice: io.Discard})
	if err != nil {
		fmt.Println("error", err)
		return 2
	}
	defer c.Close()
	store, err := fsstore.New(os.Getenv("EMQ_DIR"))
	if err != nil {
		fmt.Println("error", err)
		return 2
	}
	seen := map[archive.Step]int{}
	keepN, _ := strconv.ParseInt(os.Getenv("EMQ_KEEP"), 10, 64)
	a, err := archive.New(c, store, &archive.Config{SegmentEntries: 40, PageSize: 16, OnStep: func(ev archive.StepEvent) {
		seen[ev.Step]++
		fmt.Printf("step %s %d\n", ev.Step, seen[ev.Step])
		if ev.Step.String() != crashStep || seen[ev.Step] != nth {
			return
		}
		if ev.Step == archive.StepTrimming {
			go func() { time.Sleep(time.Duration(rand.IntN(1500)) * time.Microsecond); kill() }() // sleep: a random moment to crash at
			return
		}
		kill()
	}})
	if err != nil {
		fmt.Println("error", err)
		return 2
	}
	res, err := a.Cycle(ctx, archive.Policy{Queue: os.Getenv("EMQ_QUEUE"), Stream: os.Getenv("EMQ_STREAM"), Keep: retention.MaxLen(keepN)})
	if err != nil {
		fmt.Println("error", err)
		return 3
	}
	fmt.Println("done", res.Folded, res.Trimmed)
	return 0
}
