package contract_test

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/archive/fsstore"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/partition"
	"github.com/echomq/echomq/projection"
	"github.com/echomq/echomq/retention"
)

func TestMain(m *testing.M) { echomqtest.MainWithLeakCheck(m) }

// service is what every long-running component offers.
type service interface {
	Run(ctx context.Context) error
	Start(ctx context.Context) error
	Stop(ctx context.Context) error
	Stopped() <-chan struct{}
}

var quiet = slog.New(slog.DiscardHandler)

// TestServiceContract runs the same script on each service.
func TestServiceContract(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// restartable: may run again after a stop (a lanes Worker is
		// single-use: make a new one).
		restartable bool
		make        func(t *testing.T, c *echomq.Client, q string) service
	}{
		{"Consumer", true, func(t *testing.T, c *echomq.Client, q string) service {
			s, err := c.Consumer(&echomq.ConsumerConfig{
				Queue: q, Stream: "s", Group: "g", Start: echomq.StartHead, Logger: quiet, Beat: time.Second,
				Handle: func(context.Context, echomq.Delivery) error { return nil },
			})
			require.NoError(t, err)
			return s
		}},
		{"SetConsumer", true, func(t *testing.T, c *echomq.Client, q string) service {
			s, err := c.SetConsumer(&echomq.SetConsumerConfig{
				Set: c.Streams(q, "s", "t"), Group: "g", Start: echomq.StartHead, Logger: quiet,
				Beat: time.Second, Handle: func(context.Context, echomq.Delivery) error { return nil },
			})
			require.NoError(t, err)
			return s
		}},
		{"lanes.Worker", false, func(t *testing.T, c *echomq.Client, q string) service {
			lq, err := lanes.New(c, q, nil)
			require.NoError(t, err)
			w, err := lanes.NewWorker(lq, lanes.HandlerFunc(func(context.Context, *lanes.Job) error { return nil }),
				&lanes.WorkerConfig{Logger: quiet})
			require.NoError(t, err)
			return w
		}},
		{"projection.Live", true, func(t *testing.T, c *echomq.Client, q string) service {
			l, err := projection.NewLive(projection.Count(), nil, c.Stream(q, "s"))
			require.NoError(t, err)
			return l
		}},
		{"archive.Archiver", true, func(t *testing.T, c *echomq.Client, q string) service {
			store, err := fsstore.New(t.TempDir())
			require.NoError(t, err)
			a, err := archive.New(c, store, &archive.Config{
				Logger:   quiet,
				Policies: []archive.Policy{{Queue: q, Stream: "s", Keep: retention.MaxLen(10)}},
			})
			require.NoError(t, err)
			return a
		}},
		{"partition.Member", true, func(t *testing.T, c *echomq.Client, q string) service {
			ps, err := partition.Create(context.Background(), c, q, "p", 2)
			require.NoError(t, err)
			m, err := ps.Member(&partition.MemberConfig{
				Group: "g", Start: echomq.StartHead, Logger: quiet,
				Handle:   func(context.Context, echomq.Delivery) error { return nil },
				Consumer: &echomq.ConsumerConfig{Logger: quiet},
			})
			require.NoError(t, err)
			return m
		}},
		{"retention.Driver", true, func(t *testing.T, c *echomq.Client, q string) service {
			d, err := retention.New(c, &retention.Config{
				Logger:   quiet,
				Policies: []retention.Policy{{Queue: q, Stream: "s", Rule: retention.MaxLen(10)}},
			})
			require.NoError(t, err)
			return d
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			c, err := echomq.Connect(ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard, Logger: quiet})
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, c.Close()) })
			svc := tc.make(t, c, echomqtest.Queue(t))

			select {
			case <-svc.Stopped():
			default:
				t.Fatal("a service never run reports stopped")
			}
			require.NoError(t, svc.Stop(ctx), "stopping an idle service does nothing")

			// Start, refuse a second run, stop gracefully.
			require.NoError(t, svc.Start(ctx))
			require.ErrorIs(t, svc.Start(ctx), echomq.ErrRunning)
			require.ErrorIs(t, svc.Run(ctx), echomq.ErrRunning)
			require.NoError(t, svc.Stop(ctx))
			echomqtest.Recv(t, svc.Stopped(), 30*time.Second, "Stopped after Stop")
			require.NoError(t, svc.Stop(ctx), "Stop is idempotent")
			if !tc.restartable {
				require.ErrorIs(t, svc.Start(ctx), echomq.ErrRunning, "a single-use service says so")
				return
			}

			// Run blocks until its context ends, then returns nil.
			rctx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { done <- svc.Run(rctx) }()
			require.Eventually(t, func() bool { return running(svc) }, 30*time.Second, 10*time.Millisecond, "Run is running")
			require.ErrorIs(t, svc.Start(ctx), echomq.ErrRunning)
			cancel()
			select {
			case err := <-done:
				require.NoError(t, err)
			case <-time.After(30 * time.Second):
				t.Fatal("Run did not return after its context ended")
			}
			echomqtest.Recv(t, svc.Stopped(), 30*time.Second, "Stopped after Run returned")

			// Stop ends a Run too.
			go func() { done <- svc.Run(ctx) }()
			require.Eventually(t, func() bool { return running(svc) }, 30*time.Second, 10*time.Millisecond)
			require.NoError(t, svc.Stop(ctx))
			require.NoError(t, echomqtest.Recv(t, done, 30*time.Second, "Run to return after Stop"))
		})
	}
}

// running reports whether a run has begun and not ended.
func running(svc service) bool {
	select {
	case <-svc.Stopped():
		return false
	default:
		return true
	}
}
