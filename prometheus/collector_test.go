package emqprom_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	emqprom "github.com/echomq/echomq/prometheus"
)

func TestNewCollectorBadInput(t *testing.T) {
	t.Parallel()
	c, err := echomq.Connect(context.Background(), echomq.Config{URL: echomqtest.Shared(t).URL(), Notice: io.Discard})
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, c.Close()) })
	for _, tc := range []struct {
		name string
		cfg  emqprom.CollectorConfig
		want error
	}{
		{"no client", emqprom.CollectorConfig{}, echomq.ErrInvalidArgument},
		{"negative timeout", emqprom.CollectorConfig{Client: c, Timeout: -1}, echomq.ErrInvalidArgument},
		{"negative count limit", emqprom.CollectorConfig{Client: c, CountLimit: -1}, echomq.ErrInvalidArgument},
		{"count limit too large", emqprom.CollectorConfig{Client: c, CountLimit: echomq.MaxCountLimit + 1}, echomq.ErrInvalidArgument},
		{"bad stream name", emqprom.CollectorConfig{Client: c, Streams: []emqprom.StreamRef{{Queue: "q", Stream: "a:b"}}}, echomq.ErrInvalidName},
		{"bad queue name", emqprom.CollectorConfig{Client: c, Streams: []emqprom.StreamRef{{Queue: "emq", Stream: "s"}}}, echomq.ErrInvalidName},
		{"projection without checkpoint", emqprom.CollectorConfig{Client: c, Projections: []emqprom.Projection{{Name: "p"}}}, echomq.ErrInvalidArgument},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := emqprom.NewCollector(tc.cfg)
			require.ErrorIs(t, err, tc.want)
		})
	}
}

func TestKind(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		err  error
		want string
	}{
		{nil, ""},
		{fmt.Errorf("wrapped: %w", echomq.ErrInvalidFields), emqprom.KindInvalid},
		{echomq.ErrReservedField, emqprom.KindInvalid},
		{&echomq.NameError{}, emqprom.KindInvalid},
		{&echomq.ConflictError{}, emqprom.KindConflict},
		{&echomq.SkewError{}, emqprom.KindSkew},
		{echomq.ErrWrongType, emqprom.KindWrongType},
		{context.Canceled, emqprom.KindCanceled},
		{context.DeadlineExceeded, emqprom.KindCanceled},
		{echomq.ErrUnavailable, emqprom.KindUnavailable},
		{echomq.ErrClosed, emqprom.KindClosed},
		{&echomq.ServerError{Prefix: "ERR", Message: "ERR no"}, emqprom.KindServer},
		{errors.New("else"), emqprom.KindOther},
	} {
		require.Equal(t, tc.want, emqprom.Kind(tc.err), "%v", tc.err)
	}
}
