package echomqtest_test

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

// recorder is a testing.TB that records a failure instead of ending the
// test, to check what the helpers say when the awaited event never comes.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper() {}

func (r *recorder) Fatalf(format string, args ...any) {
	r.failed = format
	if len(args) > 1 {
		r.failed = args[1].(string)
	}
}

func TestWaitHelpers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		wait  func(tb testing.TB)
		fails string
	}{
		{"recv gets a value", func(tb testing.TB) {
			ch := make(chan int, 1)
			ch <- 7
			require.Equal(t, 7, echomqtest.Recv(tb, ch, time.Second, "the value"))
		}, ""},
		{"recv names what never came", func(tb testing.TB) {
			echomqtest.Recv(tb, make(chan int), 20*time.Millisecond, "the value")
		}, "the value"},
		{"wait for a condition that comes true", func(tb testing.TB) {
			var n atomic.Int64
			go func() { n.Store(3) }()
			echomqtest.WaitFor(tb, 10*time.Second, "three", func() bool { return n.Load() == 3 })
		}, ""},
		{"wait for names a condition that never holds", func(tb testing.TB) {
			echomqtest.WaitFor(tb, 20*time.Millisecond, "the impossible", func() bool { return false })
		}, "the impossible"},
		{"join ends with its workers", func(tb testing.TB) {
			var wg sync.WaitGroup
			wg.Go(func() {})
			echomqtest.Join(tb, &wg, 10*time.Second, "the workers")
		}, ""},
		{"join names workers that hang", func(tb testing.TB) {
			var wg sync.WaitGroup
			release := make(chan struct{})
			defer close(release)
			wg.Go(func() { <-release }) // bounded: the deferred close above releases it on every path
			echomqtest.Join(tb, &wg, 20*time.Millisecond, "the stuck worker")
		}, "the stuck worker"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := &recorder{TB: t}
			tc.wait(r)
			require.Equal(t, tc.fails, r.failed)
		})
	}
}
