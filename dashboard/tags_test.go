package dashboard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

// TestStreamShowsTags: the stream browser shows a tagged event's queue
// position and tags beside its fields, and an untagged event's fields
// alone.
func TestStreamShowsTags(t *testing.T) {
	t.Parallel()
	b := setup(t, nil)
	_, err := b.stream("orders").AppendWith(b.ctx, echomq.F("customer", "ada"), &echomq.AppendOpts{Tags: []string{"customer=ada", "region=eu"}})
	require.NoError(t, err)
	_, err = b.stream("orders").Append(b.ctx, echomq.F("customer", "bo"))
	require.NoError(t, err)
	br := b.browser(t)
	br.signIn()
	p := br.get("/q/" + b.queue + "/streams/orders")
	require.Equal(t, http.StatusOK, p.status)
	rows := strings.Split(p.body, `<tr class="livetail">`)
	require.Len(t, rows, 3, "two events")
	require.Contains(t, rows[1], `<dt class="dcb">position</dt><dd class="dcb pos">1</dd>`)
	require.Contains(t, rows[1], `<dd class="dcb tags"><code>customer=ada</code> <code>region=eu</code> </dd>`)
	require.Contains(t, rows[1], `<dt>customer</dt><dd>ada</dd>`)
	require.NotContains(t, rows[2], `class="dcb`)
	require.Contains(t, rows[2], `<dt>customer</dt><dd>bo</dd>`)
}
