package echomq_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

func TestCheckName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind, name string
		ok         bool
	}{
		{"queue", "orders", true},
		{"queue", "emq", false},
		{"queue", "", false},
		{"stream", "emq", true},
		{"consumer", "worker-1.a_b", true},
		{"consumer", "a b", false},
		{"group", strings.Repeat("g", 128), true},
		{"group", strings.Repeat("g", 129), false},
	} {
		err := echomq.CheckName(tc.kind, tc.name)
		if tc.ok {
			require.NoError(t, err, "%s %q", tc.kind, tc.name)
			continue
		}
		require.ErrorIs(t, err, echomq.ErrInvalidName, "%s %q", tc.kind, tc.name)
		var ne *echomq.NameError
		require.ErrorAs(t, err, &ne)
		require.Equal(t, tc.kind, ne.Kind)
	}
}

func ExampleCheckName() {
	fmt.Println(echomq.CheckName("consumer", "worker-1"))
	fmt.Println(echomq.CheckName("queue", "emq"))
	// Output:
	// <nil>
	// echomq: invalid queue name "emq": "emq" is reserved for cross-queue keys
}
