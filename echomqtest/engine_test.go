package echomqtest

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// EMQ_ENGINE picks the binaries; a typo is an error, not a silent Redis.
func TestEngineFromEnv(t *testing.T) {
	for _, c := range []struct {
		env         string
		want        Engine
		server, cli string
	}{
		{"", EngineRedis, "redis-server", "redis-cli"},
		{"redis", EngineRedis, "redis-server", "redis-cli"},
		{"valkey", EngineValkey, "valkey-server", "valkey-cli"},
	} {
		t.Setenv(engineEnv, c.env)
		e, err := TestEngine()
		require.NoError(t, err, c.env)
		require.Equal(t, c.want, e)
		require.Equal(t, c.server, e.server())
		require.Equal(t, c.cli, e.cli())
	}
	for _, bad := range []string{"Valkey", "redis7", "keydb"} {
		t.Setenv(engineEnv, bad)
		_, err := TestEngine()
		require.ErrorIs(t, err, errBadEngine, bad)
		_, err = serverBinary()
		require.ErrorIs(t, err, errBadEngine, bad)
		require.NotErrorIs(t, err, errNoBinary, "a bad EMQ_ENGINE must fail, not skip")
		_, err = cliBinary()
		require.ErrorIs(t, err, errBadEngine, bad)
	}
}

// The server Start spawns is the engine EMQ_ENGINE selects (INFO server
// says which).
func TestStartRunsSelectedEngine(t *testing.T) {
	t.Parallel()
	e, err := TestEngine()
	require.NoError(t, err)
	s := Start(t)
	v, err := s.Version()
	require.NoError(t, err)
	require.Equal(t, e, v.Engine, v.String())
	require.True(t, v.AtLeast(7, 0), "the suite needs Redis 7.0 or Valkey: %s", v)
}

func TestParseVersion(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		info map[string]string
		want Version
	}{
		{map[string]string{"redis_version": "7.0.15"}, Version{EngineRedis, 7, 0, 15, 7, 0}},
		{map[string]string{"redis_version": "7.2.4", "server_name": "valkey", "valkey_version": "8.0.1"}, Version{EngineValkey, 8, 0, 1, 7, 2}},
	} {
		got, err := parseVersion(c.info)
		require.NoError(t, err)
		require.Equal(t, c.want, got)
	}
	for _, bad := range []map[string]string{{}, {"redis_version": "7.0"}, {"redis_version": "7.x.1"}, {"server_name": "valkey", "redis_version": "7.2.4"}, {"valkey_version": "8.0.1"}} {
		_, err := parseVersion(bad)
		require.Error(t, err, "%v", bad)
	}
	v := Version{EngineRedis, 7, 2, 0, 7, 2}
	require.True(t, v.AtLeast(7, 2))
	require.True(t, v.AtLeast(6, 9))
	require.False(t, v.AtLeast(7, 3))
	require.False(t, v.AtLeast(8, 0))
	require.Equal(t, "redis 7.2.0", v.String())
	vk := Version{EngineValkey, 8, 0, 1, 7, 2}
	require.True(t, vk.AtLeast(8, 0))
	require.True(t, vk.RedisAtLeast(7, 2), "Valkey 8 has what Redis 7.2 has")
	require.False(t, vk.RedisAtLeast(7, 4))
	require.False(t, Version{EngineRedis, 7, 0, 15, 7, 0}.RedisAtLeast(7, 2))
}
