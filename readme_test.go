package echomq_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestReadmeTourCompiles: the README's tour is examples/tour/main.go
// verbatim, which the build compiles and vets.
func TestReadmeTourCompiles(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	tour, err := os.ReadFile("examples/tour/main.go")
	require.NoError(t, err)
	require.Contains(t, string(readme), "```go\n"+string(tour)+"```", "README tour differs from examples/tour/main.go")
}
