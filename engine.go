package echomq

import (
	"strconv"
	"strings"
	"time"
)

// Engine names of [Engine.Name].
const (
	engineRedis    = "redis"
	engineValkey   = "valkey"
	engineEmbedded = "embedded"
)

// policyNoEviction is the one maxmemory-policy under which the engine
// never deletes a key by itself.
const policyNoEviction = "noeviction"

// Engine is what a client knows of its engine: learnt at [Connect] in the
// round trip that reads the engine's clock (INFO, never CONFIG or DEBUG,
// which managed services refuse), and kept current by the engine watcher
// (Config.EngineCheckInterval).
//
// The embedded engine answers only part of INFO: it reports Name
// "embedded", an empty Version, Policy "noeviction" (it never evicts) and
// MaxMemory 0 (it has no limit); UsedMemory stays 0 and no watcher runs.
type Engine struct {
	// Name is "redis", "valkey" or "embedded".
	Name string
	// Version is the engine's own version (valkey_version on Valkey,
	// redis_version on Redis); "" when unknown.
	Version string
	// Cluster reports a cluster (cluster_enabled:1). In a cluster the
	// memory figures are those of the node that answered.
	Cluster bool
	// Checked reports that INFO answered. A user whose ACL denies INFO
	// (the engine files it under @dangerous) leaves it false: Policy and
	// the memory figures are then unknown and nothing is refused.
	Checked bool
	// Policy is the maxmemory-policy (INFO memory's maxmemory_policy): only
	// "noeviction" keeps every key; "" when unknown.
	Policy string
	// MaxMemory is maxmemory in bytes; 0 means no limit.
	MaxMemory int64
	// UsedMemory is used_memory in bytes at the last reading.
	UsedMemory int64
	// Scripts reports that the client may run scripts; Connect refuses a
	// client that may not (a [*ScriptsError]), so it is true on every
	// connected client.
	Scripts bool
	// At is when the figures were read.
	At time.Time
	// Growth is how fast UsedMemory grew over the watcher's recent
	// readings, in bytes per second; 0 when it did not grow or fewer than
	// two readings exist.
	Growth float64
	// PolicyChanges counts the changes of Policy the watcher saw since
	// Connect.
	PolicyChanges int64
}

// Evicting reports a maxmemory-policy under which the engine deletes keys
// by itself when full: every known policy but "noeviction".
func (e Engine) Evicting() bool { return e.Policy != "" && e.Policy != policyNoEviction }

// Headroom returns MaxMemory - UsedMemory (negative when above it) and
// false when the engine has no limit (or it is unknown).
func (e Engine) Headroom() (int64, bool) {
	if e.MaxMemory <= 0 {
		return 0, false
	}
	return e.MaxMemory - e.UsedMemory, true
}

// UntilFull estimates how long until UsedMemory reaches MaxMemory at the
// recent Growth; false when there is no limit or memory is not growing.
// It is 0 when the engine is already full.
func (e Engine) UntilFull() (time.Duration, bool) {
	h, ok := e.Headroom()
	if !ok || e.Growth <= 0 {
		return 0, false
	}
	if h <= 0 {
		return 0, true
	}
	return time.Duration(float64(h) / e.Growth * float64(time.Second)), true
}

// String renders the engine in one line, for logs and the CLI.
func (e Engine) String() string {
	var b strings.Builder
	b.WriteString(e.Name)
	if e.Version != "" {
		b.WriteString(" " + e.Version)
	}
	if e.Cluster {
		b.WriteString(" (cluster)")
	}
	if !e.Checked {
		b.WriteString(", INFO not readable: policy and memory unknown")
		return b.String()
	}
	b.WriteString(", maxmemory-policy " + e.Policy)
	if h, ok := e.Headroom(); ok {
		b.WriteString(", used " + strconv.FormatInt(e.UsedMemory, 10) + " of maxmemory " + strconv.FormatInt(e.MaxMemory, 10) +
			" bytes (headroom " + strconv.FormatInt(h, 10) + ")")
	} else {
		b.WriteString(", used " + strconv.FormatInt(e.UsedMemory, 10) + " bytes, no maxmemory")
	}
	return b.String()
}

// infoFields parses an INFO reply into its name:value lines.
func infoFields(info string) map[string]string {
	m := make(map[string]string, 64)
	for line := range strings.SplitSeq(info, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m
}

// engineFromInfo reads the engine's identity and memory from INFO's
// default sections.
func engineFromInfo(info string, at time.Time) Engine {
	f := infoFields(info)
	e := Engine{Name: engineRedis, Version: f["redis_version"], Cluster: f["cluster_enabled"] == "1", Checked: true, At: at}
	if v, ok := f["valkey_version"]; ok || f["server_name"] == engineValkey {
		e.Name = engineValkey
		if ok {
			e.Version = v
		}
	}
	e.readMemory(f)
	return e
}

// readMemory takes the INFO memory figures of f.
func (e *Engine) readMemory(f map[string]string) {
	e.Policy = f["maxmemory_policy"]
	e.MaxMemory, _ = strconv.ParseInt(f["maxmemory"], 10, 64)
	e.UsedMemory, _ = strconv.ParseInt(f["used_memory"], 10, 64)
}
