package lanes_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/internal/wire"
	"github.com/echomq/echomq/rawcmd"
)

// TestScriptsLoad: every lanes script compiles on the engine, and every
// one declares its keys through the shared prelude.
func TestScriptsLoad(t *testing.T) {
	t.Parallel()
	client := connect(t, echomqtest.Shared(t).URL())
	srcs := wire.LaneScriptSources()
	require.Len(t, srcs, 10)
	for name, src := range srcs {
		require.True(t, strings.HasPrefix(src, "-- Prelude of every lanes script"), name)
		sha, err := rawcmd.Do(ctx, client, "SCRIPT", "LOAD", src)
		require.NoError(t, err, name)
		require.Len(t, sha, 40, name)
	}
}
