package partition_test

import (
	"context"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/partition"
)

var quiet = slog.New(slog.DiscardHandler)

// handled records deliveries per key, with their leases.
type handled struct {
	mu    sync.Mutex
	byKey map[string][]int
	total int
}

func (h *handled) handler(t testing.TB) echomq.HandlerFunc {
	return func(ctx context.Context, d echomq.Delivery) error {
		if _, ok := partition.LeaseOf(ctx); !ok {
			t.Error("a handler runs under a lease")
		}
		n, _ := strconv.Atoi(d.Fields.Value("n"))
		h.mu.Lock()
		defer h.mu.Unlock()
		h.byKey[d.Fields.Value("key")] = append(h.byKey[d.Fields.Value("key")], n)
		h.total++
		return nil
	}
}

func (h *handled) count() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.total
}

func TestMemberShareAndRebalance(t *testing.T) {
	t.Parallel()
	_, s := setup(t, 4)
	h := &handled{byKey: map[string][]int{}}
	cfg := func(name string) *partition.MemberConfig {
		return &partition.MemberConfig{
			Group: "g", Name: name, Start: echomq.StartHead, Handle: h.handler(t),
			Beat: 50 * time.Millisecond, LeaseTTL: time.Second, Logger: quiet,
			Consumer: &echomq.ConsumerConfig{Beat: 100 * time.Millisecond, MinIdle: 5 * time.Second},
		}
	}
	run := func(m *partition.Member) (stop func()) {
		rctx, cancel := context.WithCancel(ctx)
		done := make(chan error, 1)
		go func() { done <- m.Run(rctx) }()
		return func() {
			cancel()
			require.NoError(t, echomqtest.Recv(t, done, 30*time.Second, "the member to stop"))
		}
	}
	a, err := s.Member(cfg("a"))
	require.NoError(t, err)
	b, err := s.Member(cfg("b"))
	require.NoError(t, err)
	stopA := run(a)
	require.NoError(t, b.Start(ctx))
	require.ErrorIs(t, b.Start(ctx), echomq.ErrRunning)
	echomqtest.WaitFor(t, 30*time.Second, "both members hold two partitions", func() bool {
		return len(a.Assignment().Held) == 2 && len(b.Assignment().Held) == 2
	})
	err = a.Run(ctx)
	require.ErrorIs(t, err, echomq.ErrRunning)

	appendN := func(from, to int) {
		for i := from; i < to; i++ {
			key := "k" + strconv.Itoa(i%10)
			_, err := s.Append(ctx, key, echomq.F("key", key, "n", strconv.Itoa(i)), nil)
			require.NoError(t, err)
		}
	}
	appendN(0, 200)
	echomqtest.WaitFor(t, 30*time.Second, "the first 200 handled", func() bool { return h.count() >= 200 })
	as := a.Assignment()
	require.Len(t, as.Members, 2)
	require.Len(t, as.Owners, 4, "the group's whole assignment")
	for _, h := range as.Held {
		require.Equal(t, as.Member, as.Owners[h.Partition])
	}
	st, err := a.Stats(ctx)
	require.NoError(t, err)
	require.Len(t, st, 2)

	require.NoError(t, b.Stop(ctx))
	echomqtest.Recv(t, b.Stopped(), 30*time.Second, "b to stop")
	echomqtest.WaitFor(t, 30*time.Second, "a holds all four after b left", func() bool { return len(a.Assignment().Held) == 4 })
	appendN(200, 400)
	echomqtest.WaitFor(t, 30*time.Second, "all 400 handled", func() bool { return h.count() >= 400 })
	stopA()

	h.mu.Lock()
	defer h.mu.Unlock()
	seen := 0
	for key, ns := range h.byKey {
		for i := 1; i < len(ns); i++ {
			require.Less(t, ns[i-1], ns[i], "key %s in order: %v", key, ns)
		}
		seen += len(ns)
	}
	require.Equal(t, 400, seen)
}

// TestMemberBadInput: Member refuses a bad config before any I/O.
func TestMemberBadInput(t *testing.T) {
	t.Parallel()
	_, s := setup(t, 2)
	ok := func(context.Context, echomq.Delivery) error { return nil }
	for _, tc := range []struct {
		name string
		cfg  *partition.MemberConfig
		want error
	}{
		{"nil config", nil, echomq.ErrInvalidArgument},
		{"no group", &partition.MemberConfig{Start: echomq.StartHead, Handle: ok}, echomq.ErrInvalidName},
		{"bad group", &partition.MemberConfig{Group: "a:b", Start: echomq.StartHead, Handle: ok}, echomq.ErrInvalidName},
		{"bad name", &partition.MemberConfig{Group: "g", Name: "a b", Start: echomq.StartHead, Handle: ok}, echomq.ErrInvalidName},
		{"no handler", &partition.MemberConfig{Group: "g", Start: echomq.StartHead}, echomq.ErrInvalidArgument},
		{"no start", &partition.MemberConfig{Group: "g", Handle: ok}, echomq.ErrInvalidArgument},
		{"beat too short", &partition.MemberConfig{Group: "g", Start: echomq.StartHead, Handle: ok, Beat: time.Millisecond}, echomq.ErrInvalidArgument},
		{"bad consumer template", &partition.MemberConfig{Group: "g", Start: echomq.StartHead, Handle: ok, Consumer: &echomq.ConsumerConfig{Concurrency: -1}}, echomq.ErrInvalidArgument},
		{"lease too short for the consumers' beat and grace", &partition.MemberConfig{Group: "g", Start: echomq.StartHead, Handle: ok, Beat: 100 * time.Millisecond, LeaseTTL: time.Second}, echomq.ErrInvalidArgument},
		{"lease shorter than three beats", &partition.MemberConfig{Group: "g", Start: echomq.StartHead, Handle: ok, Beat: time.Second, LeaseTTL: 2 * time.Second}, echomq.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := s.Member(tc.cfg)
			require.ErrorIs(t, err, tc.want)
			require.Nil(t, m)
		})
	}
}

// TestMemberAdoptsPending: an entry left pending by a holder that gave the
// partition up is handled by the next holder at once, not after MinIdle.
func TestMemberAdoptsPending(t *testing.T) {
	t.Parallel()
	_, s := setup(t, 1)
	handledBy := make(chan string, 4)
	cfg := func(name string, fail bool) *partition.MemberConfig {
		return &partition.MemberConfig{
			Group: "g", Name: name, Start: echomq.StartHead, Beat: 50 * time.Millisecond, LeaseTTL: time.Second, Logger: quiet,
			Consumer: &echomq.ConsumerConfig{Beat: 100 * time.Millisecond, MinIdle: time.Hour},
			Handle: func(context.Context, echomq.Delivery) error {
				if fail {
					handledBy <- name + " failed"
					return errors.New("not now")
				}
				handledBy <- name
				return nil
			},
		}
	}
	a, err := s.Member(cfg("a", true))
	require.NoError(t, err)
	require.NoError(t, a.Start(ctx))
	echomqtest.WaitFor(t, 30*time.Second, "a holds the partition", func() bool { return len(a.Assignment().Held) == 1 })
	_, err = s.Append(ctx, "k", echomq.F("n", "1"), nil)
	require.NoError(t, err)
	require.Equal(t, "a failed", echomqtest.Recv(t, handledBy, 30*time.Second, "a's delivery"))
	require.NoError(t, a.Stop(ctx))

	b, err := s.Member(cfg("b", false))
	require.NoError(t, err)
	require.NoError(t, b.Start(ctx))
	defer func() { require.NoError(t, b.Stop(ctx)) }()
	require.Equal(t, "b", echomqtest.Recv(t, handledBy, 30*time.Second, "b's delivery of the entry a left pending (MinIdle is an hour)"))
}
