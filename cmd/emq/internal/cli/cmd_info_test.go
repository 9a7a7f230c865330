package cli

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

func TestInfoGolden(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.seed("orders", 0, 3)
	b.step("info", "orders")
	b.step("--json", "info", "orders")
	b.note("an emptied stream still exists and remembers its last id")
	b.must("trim", "orders", "--maxlen", "0", "--exact")
	b.step("info", "orders")
	b.step("--json", "info", "orders")
	b.note("a missing stream exits 3")
	b.step("info", "missing")
	b.step("--json", "info", "missing")
	b.golden("info")
}

// TestInfoEngine: info --engine shows what Connect learnt; an evicting
// engine is reported, not refused; a STREAM with --engine is a usage error.
func TestInfoEngine(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t, "--maxmemory", "16mb", "--maxmemory-policy", "allkeys-lru")
	b := setup(t)
	b.url = srv.URL()
	out := b.must("info", "--engine")
	require.Regexp(t, `(?m)^engine +(redis|valkey) \d+\.\d+`, out)
	require.Regexp(t, `(?m)^cluster +no$`, out)
	require.Regexp(t, `(?m)^policy +allkeys-lru \(EVICTS`, out)
	require.Regexp(t, `(?m)^maxmemory +16777216 bytes$`, out)
	require.Regexp(t, `(?m)^headroom +\d+ bytes`, out)
	require.Regexp(t, `(?m)^scripts +yes$`, out)
	var doc engineDoc
	require.NoError(t, json.Unmarshal([]byte(b.must("--json", "info", "--engine")), &doc))
	require.True(t, doc.Evicting)
	require.Equal(t, int64(16<<20), doc.MaxMemory)
	require.NotNil(t, doc.Headroom)

	_, errs, code := b.run("info", "--engine", "s")
	require.Equal(t, ExitUsage, code, errs)
	_, errs, code = b.run("info", "s")
	require.NotEqual(t, ExitOK, code)
	require.Contains(t, errs, "maxmemory-policy", "other commands refuse the evicting engine")

	emb := setupEmbedded(t)
	require.Regexp(t, `(?m)^engine +embedded -$`, emb.must("info", "--engine"))
}
