package api

import (
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

// TestStatusOfEngineStates: an engine out of reach or full is a 503 the
// client may retry, with the player-level message, never a 500 or the
// engine's text.
func TestStatusOfEngineStates(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"unavailable", fmt.Errorf("read: %w", echomq.ErrUnavailable)},
		{"engine full", fmt.Errorf("append: %w", &echomq.EngineFullError{Message: "OOM command not allowed when used memory > 'maxmemory'."})},
		{"stream budget", fmt.Errorf("append: %w", &echomq.BudgetError{Budget: echomq.StreamBudget{Queue: "cm", Stream: "guess-scored", MaxEntries: 1}})},
	} {
		status, code := statusOf(tc.err)
		require.Equal(t, http.StatusServiceUnavailable, status, tc.name)
		require.Equal(t, CodeUnavailable, code, tc.name)
		require.Equal(t, UnavailableMessage, messageOf(tc.err, code), tc.name)
	}
	status, _ := statusOf(errors.New("boom"))
	require.Equal(t, http.StatusInternalServerError, status)
}
