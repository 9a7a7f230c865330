package watermill

import (
	"errors"
	"fmt"
	"testing"

	"github.com/echomq/echomq"
)

// TestTransient: the adapter rides out what the root package calls
// unavailable (UNBLOCKED from a failover among them) and nothing else.
func TestTransient(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"transport", &echomq.TransportError{Err: errors.New("connection refused")}, true},
		{"loading", &echomq.ServerError{Prefix: "LOADING", Message: "LOADING Redis is loading the dataset in memory"}, true},
		{"unblocked", &echomq.ServerError{Prefix: "UNBLOCKED", Message: "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)"}, true},
		{"wrapped readonly", fmt.Errorf("append: %w", &echomq.ServerError{Prefix: "READONLY", Message: "READONLY You can't write against a read only replica."}), true},
		{"wrong type", &echomq.ServerError{Prefix: "WRONGTYPE", Message: "WRONGTYPE Operation against a key holding the wrong kind of value"}, false},
		{"bad input", echomq.ErrInvalidName, false},
		{"nil", nil, false},
	} {
		if got := transient(tc.err); got != tc.want {
			t.Errorf("%s: transient = %v, want %v", tc.name, got, tc.want)
		}
	}
}
