package echomq

// Names the external tests (package echomq_test) use that are not part of
// the public API.
const (
	DefaultCount         = defaultCount
	DefaultMaxDeliveries = defaultMaxDeliveries
	DefaultMinIdle       = defaultMinIdle
	EngineEmbedded       = engineEmbedded
	EngineNode           = engineNode
	EngineRedis          = engineRedis
	EngineValkey         = engineValkey
	Epoch                = epoch
	InteropVersion       = interopVersion
	MaxBeat              = maxBeat
	MaxCount             = maxCount
	MaxCountLimit        = maxCountLimit
	MaxGrace             = maxGrace
	MaxMinIdle           = maxMinIdle
	PolicyNoEviction     = policyNoEviction
	ReservedField        = reservedField
	TrimByArchive        = trimByArchive
	TrimByCaller         = trimByCaller
)

// AppendStats is the client's append counters.
type AppendStats = appendStats

// AppendStatsOf returns c's append counters.
func AppendStatsOf(c *Client) AppendStats { return c.appendStats() }

// ScriptVerbs returns the verbs that need scripts.
func ScriptVerbs() []string { return append([]string(nil), scriptVerbs...) }

// SnowflakeMillis returns s's milliseconds since the epoch.
func SnowflakeMillis(s Snowflake) int64 { return s.millis() }

// SetMinterNode moves m to node n.
func SetMinterNode(m *Minter, n int) error { return m.setNode(n) }
