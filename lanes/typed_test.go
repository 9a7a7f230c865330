package lanes_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/lanes"
)

type guess struct {
	Player string   `json:"player"`
	Emojis []string `json:"emojis"`
}

func TestTyped(t *testing.T) {
	t.Parallel()
	q := setup(t, nil)
	typed := lanes.NewTyped[guess](q, nil)
	require.Same(t, q, typed.Queue())
	_, err := typed.Enqueue(ctx, "PLR1", guess{Player: "PLR1", Emojis: []string{"🐶", "🐱"}}, nil)
	require.NoError(t, err)
	bad, err := q.Enqueue(ctx, "PLR2", []byte("not json"), nil)
	require.NoError(t, err)

	got := make(chan guess, 1)
	startWorker(t, q, typed.Handler(func(ctx context.Context, job *lanes.Job, g guess) error {
		got <- g
		return nil
	}), fastWorker(lanes.WorkerConfig{}))
	require.Equal(t, guess{Player: "PLR1", Emojis: []string{"🐶", "🐱"}}, echomqtest.Recv(t, got, 20*time.Second, "the typed job"))
	eventually(t, q, func(s lanes.Stats) bool { return s.Completed == 1 && s.Dead == 1 })
	info, err := q.Job(ctx, bad)
	require.NoError(t, err)
	require.Contains(t, info.LastError, "decode payload")
	require.Equal(t, 1, info.Attempts, "an undecodable payload is not retried")

	floats := lanes.NewTyped[float64](q, lanes.JSON[float64]{})
	_, err = floats.Enqueue(ctx, "L", math.Inf(1), nil)
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
}
