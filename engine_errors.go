package echomq

import (
	"errors"
	"strings"

	"github.com/echomq/echomq/internal/wire"
)

// Sentinels of the engine's configuration and state, for errors.Is.
var (
	// ErrEvictingEngine: [Connect] met an engine whose maxmemory-policy
	// lets it delete keys by itself. See [EvictionError].
	ErrEvictingEngine = errors.New("echomq: engine evicts keys")
	// ErrScriptsDenied: [Connect] met an engine that does not let this
	// user run scripts, which most verbs need. See [ScriptsError].
	ErrScriptsDenied = errors.New("echomq: scripts denied")
	// ErrEngineFull: the engine is at its maxmemory and, under the
	// noeviction policy, refuses what would add memory (appends, new
	// groups, dead letters, lanes jobs), until acknowledging, trimming or
	// an archive cycle frees some, or maxmemory is raised. Reads,
	// acknowledgements, claims, trims and archive cycles keep working. It
	// is not [ErrUnavailable]: retrying at once fails again, and nothing
	// was written. See [EngineFullError]; [Client.Engine] gives the used
	// and maximum memory at the last reading.
	ErrEngineFull = wire.ErrEngineFull
)

// EngineFullError is the engine's OOM reply; it matches [ErrEngineFull].
// Appends fill in its UsedMemory and MaxMemory from [Client.Engine].
type EngineFullError = wire.EngineFullError

// withMemory fills the memory figures of an [*EngineFullError] in err from
// the client's last reading of the engine.
func (c *Client) withMemory(err error) error {
	var fe *EngineFullError
	if err != nil && errors.As(err, &fe) && fe.MaxMemory == 0 {
		e := c.Engine()
		fe.UsedMemory, fe.MaxMemory = e.UsedMemory, e.MaxMemory
	}
	return err
}

// EvictionError is an engine whose maxmemory-policy evicts: when its used
// memory reaches maxmemory it deletes keys by itself, and EchoMQ's keys
// are its data. It matches [ErrEvictingEngine].
type EvictionError struct {
	// Engine is what Connect read.
	Engine Engine
}

func (e *EvictionError) Error() string {
	var stake string
	if strings.HasPrefix(e.Engine.Policy, "volatile-") {
		stake = "it deletes keys that have a time-to-live: idempotency keys (a retried append is written twice), " +
			"node id leases (two processes mint the same ids), Once markers, archive and lanes leases"
	} else {
		stake = "it deletes any key: whole streams with their acknowledged events, consumer groups, " +
			"idempotency keys, node id leases"
	}
	return "echomq: engine evicts keys: maxmemory-policy is " + e.Engine.Policy + ", so when used memory reaches maxmemory " +
		stake + ", silently. Fix: CONFIG SET maxmemory-policy noeviction (and maxmemory-policy noeviction in the " +
		"engine's configuration file, or the managed service's parameter group); a full engine then refuses appends " +
		"with ErrEngineFull instead of losing data. Config.AllowEviction connects anyway, accepting the loss"
}

// Is makes errors.Is(err, ErrEvictingEngine) true.
func (e *EvictionError) Is(target error) bool { return target == ErrEvictingEngine }

// scriptVerbs names what needs the engine's scripts (EVALSHA and EVAL):
// nearly everything that writes. A user whose ACL denies them (-@scripting,
// or an engine built without Lua) is refused at [Connect] with a
// [*ScriptsError] that lists them.
var scriptVerbs = []string{
	"Stream.Append, AppendBatch (id arbitration, idempotency keys)",
	"tables.Update (transactions)",
	"Consumer and StreamSet consumers (dead letters, hand-back at stop)",
	"Group.DeleteConsumer, Group.Reset",
	"DeadLetters.Replay",
	"Stream.Trim (the archive guard), archive.SetWatermark",
	"Stream.CountAfter and group lag",
	"StreamSet discovery",
	"Once handlers",
	"node id leases (a queue's first mint without Config.NodeID)",
	"package archive (its lease and watermark), package lanes (every verb)",
}

// ScriptsError is an engine that does not let this user run scripts. It
// matches [ErrScriptsDenied], and [ErrPermission] too when the refusal is
// the ACL's (NOPERM).
type ScriptsError struct {
	// Err is the engine's refusal (NOPERM for an ACL without @scripting).
	Err error
}

func (e *ScriptsError) Error() string {
	return "echomq: scripts denied: the engine refused EVALSHA (" + trimPrefix(e.Err.Error()) + "); EchoMQ needs " +
		"EVALSHA and EVAL (ACL: +evalsha +eval, or +@scripting) for: " + strings.Join(scriptVerbs, "; ")
}

// Unwrap returns [ErrScriptsDenied], so errors.Is matches it, and the
// engine's refusal.
func (e *ScriptsError) Unwrap() []error { return sentinelAnd(ErrScriptsDenied, e.Err) }
