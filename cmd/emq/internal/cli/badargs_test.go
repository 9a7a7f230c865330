package cli

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Every bad command line exits 2 with exactly one line "emq: …" on stderr,
// nothing on stdout, and writes nothing.
func TestBadArguments(t *testing.T) {
	t.Parallel()
	b := setup(t)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"unknown command", []string{"bogus"}},
		{"unknown flag", []string{"--bogus"}},
		{"unknown subcommand", []string{"id", "bogus"}},
		{"append without args", []string{"append"}},
		{"append without fields", []string{"append", "s"}},
		{"field without =", []string{"append", "s", "novalue"}},
		{"field with empty name", []string{"append", "s", "=v"}},
		{"reserved field", []string{"append", "s", "k=v", "id=x"}},
		{"bad stream name", []string{"append", "bad name", "k=v"}},
		{"stream name with colon", []string{"append", "a:b", "k=v"}},
		{"reserved queue", []string{"--queue", "emq", "append", "s", "k=v"}},
		{"bad queue name", []string{"-q", "a{b}", "read", "s"}},
		{"node out of range", []string{"--node", "1024", "append", "s", "k=v"}},
		{"url without scheme", []string{"--url", "localhost:6379", "read", "s"}},
		{"url of another scheme", []string{"--url", "http://127.0.0.1:1", "read", "s"}},
		{"negative node", []string{"--node=-1", "id", "new", "EVT"}},
		{"node not a number", []string{"--node", "x", "append", "s", "k=v"}},
		{"short id", []string{"append", "--id", "EVT123", "s", "k=v"}},
		{"id of another brand", []string{"append", "--id", "JOB0KHTOWnGLuC", "s", "k=v"}},
		{"id above 2^63-1", []string{"append", "--id", "EVTAzL8n0Y58m8", "s", "k=v"}},
		{"read without stream", []string{"read"}},
		{"read two streams", []string{"read", "a", "b"}},
		{"bad bound", []string{"read", "s", "--from", "yesterday"}},
		{"bad id bound", []string{"read", "s", "--from", "EVT!!!!!!!!!!!"}},
		{"bad exclusive bound", []string{"read", "s", "--to", "("}},
		{"inverted range", []string{"read", "s", "--from", "+5m", "--to", "-5m"}},
		{"negative count", []string{"read", "s", "--count", "-1"}},
		{"count not a number", []string{"read", "s", "-n", "x"}},
		{"window arity", []string{"window", "s", "now"}},
		{"inverted window", []string{"window", "s", "now", "-1h"}},
		{"bad window time", []string{"window", "s", "bogus", "now"}},
		{"relative without sign", []string{"window", "s", "1h", "now"}},
		{"bad since time", []string{"since", "s", "tomorrow"}},
		{"tail negative count", []string{"tail", "s", "-n", "-1"}},
		{"tail from and count", []string{"tail", "s", "--from", "-1h", "-n", "3"}},
		{"tail bad from", []string{"tail", "s", "--from", "nope"}},
		{"trim without spec", []string{"trim", "s"}},
		{"trim with both", []string{"trim", "s", "--maxlen", "1", "--minid", "now"}},
		{"trim negative length", []string{"trim", "s", "--maxlen", "-1"}},
		{"trim bad minid", []string{"trim", "s", "--minid", "xyz"}},
		{"trim minid of another brand", []string{"trim", "s", "--minid", "JOB0KHTOWnGLuC"}},
		{"info without stream", []string{"info"}},
		{"info bad name", []string{"info", "a/b"}},
		{"decode short id", []string{"id", "decode", "EVT000xY9Wvvc"}},
		{"decode one bad of two", []string{"id", "decode", "EVT000xY9Wvvcd", "nope"}},
		{"decode entry before epoch", []string{"id", "decode", "1000-0"}},
		{"decode lowercase brand", []string{"id", "decode", "evt000xY9Wvvcd"}},
		{"decode nothing on stdin", []string{"id", "decode", "-"}},
		{"encode lowercase brand", []string{"id", "encode", "evt", "1"}},
		{"encode negative", []string{"id", "encode", "EVT", "--", "-1"}},
		{"encode not a number", []string{"id", "encode", "EVT", "x"}},
		{"encode too large", []string{"id", "encode", "EVT", "9223372036854775808"}},
		{"new bad brand", []string{"id", "new", "EV"}},
		{"new zero count", []string{"id", "new", "EVT", "-n", "0"}},
		{"demo with args", []string{"demo", "extra"}},
		{"demo bad queue", []string{"--queue", "bad queue", "demo"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, errs, code := b.run(tc.args...)
			require.Equal(t, ExitUsage, code, "stderr: %s", errs)
			require.Empty(t, out)
			require.True(t, strings.HasPrefix(errs, "emq: ") && strings.HasSuffix(errs, "\n"), "%q", errs)
			require.Equal(t, 1, strings.Count(errs, "\n"), "%q", errs)
			require.NotContains(t, errs, "echomq:", "the library prefix is dropped")
		})
	}
	t.Cleanup(func() {
		// Nothing was written: the stream every case named does not exist.
		_, errs, code := b.run("info", "s")
		if code != ExitNotFound {
			t.Errorf("info s: exit %d (%s), want %d", code, errs, ExitNotFound)
		}
	})
}

func TestRuntimeErrors(t *testing.T) {
	t.Parallel()
	b := setupEmbedded(t)
	b.url = "redis://127.0.0.1:1" // nothing listens on port 1
	for _, args := range [][]string{{"append", "s", "k=v"}, {"read", "s"}, {"info", "s"}} {
		out, errs, code := b.run(args...)
		require.Equal(t, ExitError, code, errs)
		require.Empty(t, out)
		require.Equal(t, 1, strings.Count(errs, "\n"), "%q", errs)
		require.True(t, strings.HasPrefix(errs, "emq: "), errs)
	}
}

func TestBadEnvURL(t *testing.T) {
	t.Parallel()
	b := setupEmbedded(t)
	b.env = map[string]string{"EMQ_URL": "localhost:6379"}
	out, errs, code := b.run("read", "s")
	require.Equal(t, ExitUsage, code)
	require.Empty(t, out)
	require.Equal(t, "emq: invalid EMQ_URL: want redis://host:port, rediss://, valkey://, valkeys:// or unix://\n", errs)
}

// EMQ_URL names the engine when --url is not given: what one invocation
// appends, the next one reads.
func TestEnvURL(t *testing.T) {
	t.Parallel()
	b := setup(t)
	b.env = map[string]string{"EMQ_URL": b.url}
	b.url = ""
	id := strings.TrimSpace(b.must("append", "s", "k=v"))
	require.Contains(t, b.must("read", "s"), id)
}
