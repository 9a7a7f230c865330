package echomqtest

import (
	"errors"
	"fmt"
	"os"
	"testing"
)

// Engine names the server program the helpers start: Redis (redis-server
// and redis-cli) or Valkey (valkey-server and valkey-cli). The two speak
// the same protocol and take the same command line, so every helper works
// with either; the suites run on both (see the Makefile's test target).
type Engine string

const (
	// EngineRedis starts redis-server and redis-cli (the default).
	EngineRedis Engine = "redis"
	// EngineValkey starts valkey-server and valkey-cli.
	EngineValkey Engine = "valkey"
)

// engineEnv selects the engine; serverEnv and cliEnv name a binary's path
// outright (overriding what the engine would look up in $PATH).
const (
	engineEnv = "EMQ_ENGINE"
	serverEnv = "EMQ_REDIS_SERVER"
	cliEnv    = "EMQ_REDIS_CLI"
)

// errBadEngine marks an EMQ_ENGINE value that names no engine; it fails a
// test even outside CI, since a typo would otherwise run the wrong engine.
var errBadEngine = errors.New("unknown engine")

// TestEngine returns the engine the helpers start, chosen by the EMQ_ENGINE
// environment variable: "redis" (or unset) or "valkey". Any other value is
// an error: the test that needs a server fails, saying so.
func TestEngine() (Engine, error) {
	switch e := Engine(os.Getenv(engineEnv)); e {
	case "", EngineRedis:
		return EngineRedis, nil
	case EngineValkey:
		return EngineValkey, nil
	default:
		return "", fmt.Errorf("echomqtest: %s=%q: %w (want %q or %q)", engineEnv, string(e), errBadEngine, EngineRedis, EngineValkey)
	}
}

// String returns the engine's name, "redis" or "valkey".
func (e Engine) String() string { return string(e) }

// server returns the name of the engine's server binary.
func (e Engine) server() string { return string(e) + "-server" }

// cli returns the name of the engine's command-line client.
func (e Engine) cli() string { return string(e) + "-cli" }

// install says how to get the engine's binaries on Debian.
func (e Engine) install() string {
	if e == EngineValkey {
		return "`make valkey-server` (Debian's bookworm-backports)"
	}
	return "`apt-get install redis-server`"
}

// serverBinary finds the selected engine's server binary.
func serverBinary() (string, error) {
	e, err := TestEngine()
	if err != nil {
		return "", err
	}
	return lookBinary(e.server(), serverEnv, e.install())
}

// cliBinary finds the selected engine's command-line client.
func cliBinary() (string, error) {
	e, err := TestEngine()
	if err != nil {
		return "", err
	}
	return lookBinary(e.cli(), cliEnv, e.install())
}

// mustBinary runs find (serverBinary or cliBinary), reporting failures via
// skipOrFatal.
func mustBinary(tb testing.TB, find func() (string, error)) string {
	tb.Helper()
	p, err := find()
	if err != nil {
		skipOrFatal(tb, err)
	}
	return p
}
