package echomq_test

import (
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

func itoa(n int) string { return strconv.Itoa(n) }

// mint mints an id under brand for queue q with c (leasing a node id in q
// on its first use).
func mint(t testing.TB, c *echomq.Client, q, brand string) echomq.ID {
	t.Helper()
	id, err := c.MintID(ctx, q, brand)
	require.NoError(t, err)
	return id
}

// syncBuffer is a bytes.Buffer safe for concurrent writers.
type syncBuffer = echomqtest.Buffer
