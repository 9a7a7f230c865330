package views_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/echomqtest"
)

// The views ride out an engine restart and a pause with snapshots on (the
// snapshot SET fails while the engine is away): Run does not return, each
// view logs its failure and recovery, and events after the fault are
// folded on top of those before, none lost.
func TestViewsRideOutEngineFaults(t *testing.T) {
	t.Parallel()
	srv := echomqtest.StartPersistent(t)
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: srv.URL(), Notice: io.Discard, Logger: quiet, CallTimeout: time.Second})
	require.NoError(t, err)
	defer client.Close()
	e, err := codemojex.New(client, &codemojex.Config{Queue: echomqtest.Queue(t), Logger: quiet})
	require.NoError(t, err)
	logs := &echomqtest.Buffer{}
	v, err := views.New(e, &views.Config{
		Snapshots: true, Block: 100 * time.Millisecond, SnapshotInterval: 50 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(logs, nil)),
	})
	require.NoError(t, err)
	rctx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- v.Run(rctx) }()

	rooms := func() int {
		l, _, err := v.Lobby.State(ctx)
		require.NoError(t, err)
		return len(l.Rooms)
	}
	open := func(name string) {
		_, err := e.CreateRoom(ctx, codemojex.RoomSpec{Name: name, Prize: 100, Duration: time.Hour})
		require.NoError(t, err)
	}
	open("before")
	require.Eventually(t, func() bool { return rooms() == 1 }, 10*time.Second, 20*time.Millisecond)

	for i, fault := range []func(){
		func() { require.NoError(t, srv.Kill()); time.Sleep(2 * time.Second); srv.Restart(t) },                    // sleep: the outage lasts
		func() { require.NoError(t, srv.Pause()); time.Sleep(3 * time.Second); require.NoError(t, srv.Resume()) }, // sleep: the outage lasts
	} {
		fault()
		// The room is written once the engine answers again: a write cut off
		// by the 1 s call bound while the client reconnects would be
		// ambiguous, and writing it twice would count two rooms.
		require.Eventually(t, func() bool { _, err := client.EngineTime(ctx); return err == nil }, 30*time.Second, 50*time.Millisecond, "fault %d", i)
		select {
		case err := <-ran:
			t.Fatalf("views stopped after fault %d: %v", i, err)
		default:
		}
		open("after")
		require.Eventually(t, func() bool { return rooms() == 2+i }, 30*time.Second, 50*time.Millisecond, "fault %d", i)
	}
	// A view rides out an outage inside its projection (which logs the
	// outage and the engine's return on the views' logger) or, when its
	// run ends, by the views' restart of it ("view recovered").
	recovered := func() bool {
		l := logs.String()
		return strings.Contains(l, "view recovered") || strings.Contains(l, "echomq: projection: engine back")
	}
	require.Eventually(t, recovered, 10*time.Second, 50*time.Millisecond, "logs:\n%s", logs)
	stop()
	require.NoError(t, echomqtest.Recv(t, ran, 30*time.Second, "the views to stop"))
	t.Logf("views logged %d outages and %d recoveries", strings.Count(logs.String(), "engine unavailable")+strings.Count(logs.String(), "trying it again"),
		strings.Count(logs.String(), "engine back")+strings.Count(logs.String(), "view recovered"))
}

// Running the views twice at once is refused with ErrRunning; the other
// run goes on.
func TestViewsRunTwice(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	client, err := echomq.Connect(ctx, &echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard, Logger: quiet})
	require.NoError(t, err)
	defer client.Close()
	e, err := codemojex.New(client, &codemojex.Config{Queue: echomqtest.Queue(t), Logger: quiet})
	require.NoError(t, err)
	v, err := views.New(e, &views.Config{Block: 100 * time.Millisecond, Logger: quiet})
	require.NoError(t, err)
	rctx, stop := context.WithCancel(ctx)
	defer stop()
	runs := make(chan error, 2)
	for range 2 {
		go func() { runs <- v.Run(rctx) }()
	}
	select {
	case err := <-runs:
		require.ErrorIs(t, err, echomq.ErrRunning)
	case <-time.After(10 * time.Second):
		t.Fatal("neither run was refused")
	}
	select {
	case err := <-runs:
		t.Fatalf("the other run stopped too: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	stop()
	require.NoError(t, echomqtest.Recv(t, runs, 30*time.Second, "the other run to stop"))
}
