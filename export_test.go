package echomq

import (
	"context"
	"time"
)

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

// SnowflakeAt is the smallest snowflake mintable at t.
func SnowflakeAt(t time.Time) Snowflake { return snowflakeAt(t) }

// NewSnowflake builds a snowflake from its parts.
func NewSnowflake(ms int64, node, seq int) (Snowflake, error) { return newSnowflake(ms, node, seq) }

// NodeIDOf is the node id c mints under in queue.
func NodeIDOf(ctx context.Context, c *Client, queue string) (int, error) { return c.nodeID(ctx, queue) }

// ReadLatest reads the n newest events of s, oldest first.
func ReadLatest(ctx context.Context, s *Stream, n int) ([]Event, error) { return s.readLatest(ctx, n) }

const (
	IDLen   = idLen
	MaxNode = maxNode
)

// ConsumerConfigOf is c's configuration with the defaults filled in.
func ConsumerConfigOf(c *Consumer) ConsumerConfig { return c.cfg }

// TypedVersion is the schema version t writes.
func TypedVersion[T any](t *Typed[T]) int { return t.up.version }
