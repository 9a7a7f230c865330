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

// The server Start spawns is the engine EMQ_ENGINE selects: Valkey says so
// in INFO server (server_name), Redis 7 has no such field.
func TestStartRunsSelectedEngine(t *testing.T) {
	t.Parallel()
	e, err := TestEngine()
	require.NoError(t, err)
	s := Start(t)
	info, err := respString(s.Addr(), testTimeout, "INFO", "server")
	require.NoError(t, err)
	fields := parseInfo(info)
	if e == EngineValkey {
		require.Equal(t, "valkey", fields["server_name"], info)
		require.NotEmpty(t, fields["valkey_version"], info)
	} else {
		require.Empty(t, fields["valkey_version"], info)
	}
}
