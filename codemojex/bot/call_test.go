package bot

import (
	"errors"
	"net"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestAPIErrorTemporary(t *testing.T) {
	t.Parallel()
	netErr := &net.OpError{Op: "dial", Err: errors.New("connection refused")}
	for _, tc := range []struct {
		name string
		e    APIError
		want bool
	}{
		{"429", APIError{Status: http.StatusTooManyRequests, Err: errors.New("x")}, true},
		{"502", APIError{Status: http.StatusBadGateway, Err: errors.New("x")}, true},
		{"500", APIError{Status: http.StatusInternalServerError, Err: errors.New("x")}, true},
		{"network", APIError{Err: netErr}, true},
		{"400", APIError{Status: http.StatusBadRequest, Err: errors.New("x")}, false},
		{"403 blocked", APIError{Status: http.StatusForbidden, Err: errors.New("x")}, false},
		{"no answer, not the network", APIError{Err: errors.New("bad form")}, false},
		{"undecodable 200", APIError{Status: http.StatusOK, Err: errors.New("decode")}, false},
	} {
		require.Equal(t, tc.want, tc.e.Temporary(), tc.name)
	}
}
