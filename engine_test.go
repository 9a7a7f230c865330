package echomq_test

import (
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/embedded"
	"github.com/echomq/echomq/rawcmd"
)

// TestEngineKnown: Connect learns the engine, its version, its memory and
// its policy from INFO; the embedded engine reports its documented values.
func TestEngineKnown(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t, "--maxmemory", "64mb")
	c := connect(t, echomq.Config{URL: srv.URL()})
	e := c.Engine()
	require.Contains(t, []string{echomq.EngineRedis, echomq.EngineValkey}, e.Name)
	require.NotEmpty(t, e.Version)
	require.True(t, e.Checked)
	require.True(t, e.Scripts)
	require.False(t, e.Cluster)
	require.Equal(t, echomq.PolicyNoEviction, e.Policy)
	require.False(t, e.Evicting())
	require.Equal(t, int64(64<<20), e.MaxMemory)
	require.Positive(t, e.UsedMemory)
	h, ok := e.Headroom()
	require.True(t, ok)
	require.Equal(t, e.MaxMemory-e.UsedMemory, h)
	require.Contains(t, e.String(), "maxmemory-policy noeviction")
	v, err := rawcmd.Do(ctx, c, "INFO", "server")
	require.NoError(t, err)
	require.Contains(t, v.(string), "_version:"+e.Version)

	emb := connect(t, echomq.Config{URL: embedded.URL})
	require.Equal(t, echomq.Engine{Name: echomq.EngineEmbedded, Policy: echomq.PolicyNoEviction, Checked: true, Scripts: true, At: emb.Engine().At},
		emb.Engine())
	_, ok = emb.Engine().Headroom()
	require.False(t, ok, "the embedded engine has no limit")
}

// TestEvictingEngineRefused: every evicting policy fails Connect with a
// typed error naming the fix; AllowEviction connects anyway.
func TestEvictingEngineRefused(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t, "--maxmemory", "8mb")
	admin := connect(t, echomq.Config{URL: srv.URL(), NodeID: new(1)})
	for _, policy := range []string{"allkeys-lru", "allkeys-lfu", "allkeys-random", "volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"} {
		_, err := rawcmd.Do(ctx, admin, "CONFIG", "SET", "maxmemory-policy", policy)
		require.NoError(t, err)
		c, err := echomq.Connect(ctx, &echomq.Config{URL: srv.URL(), Notice: io.Discard})
		require.Nil(t, c, policy)
		require.ErrorIs(t, err, echomq.ErrEvictingEngine, policy)
		var ee *echomq.EvictionError
		require.ErrorAs(t, err, &ee)
		require.Equal(t, policy, ee.Engine.Policy)
		require.Equal(t, int64(8<<20), ee.Engine.MaxMemory)
		require.Contains(t, err.Error(), "CONFIG SET maxmemory-policy noeviction")
		require.Contains(t, err.Error(), "maxmemory-policy is "+policy)
		require.Contains(t, err.Error(), "Config.AllowEviction")
		if strings.HasPrefix(policy, "volatile-") {
			require.Contains(t, err.Error(), "idempotency keys")
		} else {
			require.Contains(t, err.Error(), "acknowledged events")
		}
	}
	var logs syncBuffer
	c := connect(t, echomq.Config{URL: srv.URL(), AllowEviction: true, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.True(t, c.Engine().Evicting())
	require.Contains(t, logs.String(), "Config.AllowEviction accepts it")
	_, err := rawcmd.Do(ctx, admin, "CONFIG", "SET", "maxmemory-policy", "noeviction")
	require.NoError(t, err)
}

// TestEngineWatcher: a policy changed at run time is seen by the watcher,
// logged once, and counted; Close stops the watcher (goleak checks it).
func TestEngineWatcher(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	var logs syncBuffer
	c := connect(t, echomq.Config{
		URL: srv.URL(), EngineCheckInterval: 20 * time.Millisecond,
		Logger: slog.New(slog.NewTextHandler(&logs, nil)),
	})
	require.Equal(t, echomq.PolicyNoEviction, c.Engine().Policy)
	_, err := rawcmd.Do(ctx, c, "CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return c.Engine().Policy == "allkeys-lru" }, 30*time.Second, 10*time.Millisecond)
	require.Equal(t, int64(1), c.Engine().PolicyChanges)
	first := c.Engine().At
	require.Eventually(t, func() bool { return c.Engine().At.After(first) }, 30*time.Second, 10*time.Millisecond,
		"the watcher keeps reading")
	require.Equal(t, 1, strings.Count(logs.String(), "changed to one that evicts"), "a change is logged once")
	_, err = rawcmd.Do(ctx, c, "CONFIG", "SET", "maxmemory-policy", "noeviction")
	require.NoError(t, err)
	require.Eventually(t, func() bool { return c.Engine().PolicyChanges == 2 }, 30*time.Second, 10*time.Millisecond)
	require.Equal(t, echomq.PolicyNoEviction, c.Engine().Policy)
}

// TestScriptsDenied: a user whose ACL denies scripting is refused at
// Connect with a typed error naming the verbs that need scripts; a user
// denied INFO connects with the engine's figures marked unchecked.
func TestScriptsDenied(t *testing.T) {
	t.Parallel()
	srv := echomqtest.Start(t)
	admin := connect(t, echomq.Config{URL: srv.URL(), NodeID: new(1)})
	_, err := rawcmd.Do(ctx, admin, "ACL", "SETUSER", "noscript", "on", ">pw", "~*", "&*", "+@all", "-@scripting")
	require.NoError(t, err)
	_, err = rawcmd.Do(ctx, admin, "ACL", "SETUSER", "noinfo", "on", ">pw", "~*", "&*", "+@all", "-@dangerous")
	require.NoError(t, err)
	url := func(user string) string { return strings.Replace(srv.URL(), "redis://", "redis://"+user+":pw@", 1) }

	c, err := echomq.Connect(ctx, &echomq.Config{URL: url("noscript"), NodeID: new(2)})
	require.Nil(t, c)
	require.ErrorIs(t, err, echomq.ErrScriptsDenied)
	require.ErrorIs(t, err, echomq.ErrPermission, "the refusal is the ACL's")
	var se *echomq.ScriptsError
	require.ErrorAs(t, err, &se)
	require.Contains(t, err.Error(), "NOPERM")
	require.Contains(t, err.Error(), "+evalsha +eval")
	for _, verb := range []string{"Stream.Append", "tables.Update", "Consumer", "Stream.Trim", "package lanes"} {
		require.Contains(t, err.Error(), verb)
	}
	for _, verbs := range echomq.ScriptVerbs() {
		require.Contains(t, err.Error(), verbs)
	}

	var logs syncBuffer
	c = connect(t, echomq.Config{URL: url("noinfo"), Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.False(t, c.Engine().Checked)
	require.Empty(t, c.Engine().Policy)
	require.True(t, c.Engine().Scripts)
	require.Contains(t, logs.String(), "grant +info")
	_, err = c.Stream(echomqtest.Queue(t), "s").Append(ctx, echomq.F("k", "v"), nil)
	require.NoError(t, err)
}
