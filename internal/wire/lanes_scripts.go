package wire

import (
	"context"
	"embed"
	"fmt"

	"github.com/valkey-io/valkey-go"
)

// The lanes scripts live in lua/lanes_*.lua. Each is the shared prelude
// (key vector, helpers) followed by its body, loaded once per engine and
// called by SHA with EVAL as the fallback ([Script]).

//go:embed lua/lanes_*.lua
var lanesLua embed.FS

var (
	laneEnqueueLua  = laneScript("enqueue")
	laneClaimLua    = laneScript("claim")
	laneCompleteLua = laneScript("complete")
	laneFailLua     = laneScript("fail")
	laneExtendLua   = laneScript("extend")
	laneReleaseLua  = laneScript("release")
	laneSweepLua    = laneScript("sweep")
	laneControlLua  = laneScript("control")
	laneDeadLua     = laneScript("dead")
	laneReadLua     = laneScript("read")
)

// lanesScript is a lanes script with its full source kept for
// [LaneScriptSources].
type lanesScript struct {
	*Script
	src string
}

func laneScript(name string) *lanesScript {
	prelude, err := lanesLua.ReadFile("lua/lanes_prelude.lua")
	if err != nil {
		panic(err)
	}
	body, err := lanesLua.ReadFile("lua/lanes_" + name + ".lua")
	if err != nil {
		panic(err)
	}
	src := string(prelude) + "\n" + string(body)
	return &lanesScript{Script: NewScript(src), src: src}
}

// LaneScriptSources returns the full source of every lanes script by name,
// for documentation and for tests that lint them.
func LaneScriptSources() map[string]string {
	out := map[string]string{}
	for name, s := range map[string]*lanesScript{
		"enqueue": laneEnqueueLua, "claim": laneClaimLua, "complete": laneCompleteLua,
		"fail": laneFailLua, "extend": laneExtendLua, "release": laneReleaseLua,
		"sweep": laneSweepLua, "control": laneControlLua, "dead": laneDeadLua, "read": laneReadLua,
	} {
		out[name] = s.src
	}
	return out
}

// LaneKeys is the key vector of one queue's lanes, in the order the scripts'
// prelude unpacks it; build it with [NewLaneKeys]. Every key carries the queue's hash tag. JobPrefix and
// LanePrefix are prefixes the scripts append a JOB id or a lane name to.
type LaneKeys struct {
	JobPrefix, LanePrefix, Ring, RingSet, Active, Schedule, Backoff, Hold, Dead,
	Paused, InFlight, Limits, Lanes, Stats, Seq, Wake, Meta string

	vec []string
}

// NewLaneKeys returns k with its vector computed, ready to share between
// goroutines.
func NewLaneKeys(k LaneKeys) *LaneKeys {
	k.vec = []string{
		k.JobPrefix, k.LanePrefix, k.Ring, k.RingSet, k.Active, k.Schedule,
		k.Backoff, k.Hold, k.Dead, k.Paused, k.InFlight, k.Limits, k.Lanes, k.Stats, k.Seq,
		k.Wake, k.Meta,
	}
	return &k
}

// Vector returns the keys in prelude order.
func (k *LaneKeys) Vector() []string { return k.vec }

// runLane runs a lanes script and returns the raw reply.
func (w *Conn) runLane(ctx context.Context, s *lanesScript, k *LaneKeys, args []string) (valkey.ValkeyMessage, error) {
	msg, err := s.s.Exec(ctx, w.c, k.Vector(), args).ToMessage()
	if err != nil && !isNil(err) {
		return msg, convert(err)
	}
	return msg, nil
}

// laneArray decodes an array reply of at least n elements.
func laneArray(msg valkey.ValkeyMessage, what string, n int) ([]valkey.ValkeyMessage, error) {
	arr, err := msg.ToArray()
	if err != nil {
		return nil, fmt.Errorf("echomq: decode %s reply: %w", what, err)
	}
	if len(arr) < n {
		return nil, fmt.Errorf("echomq: decode %s reply: %d elements, want %d", what, len(arr), n)
	}
	return arr, nil
}

// laneStr and laneNum read one element of a script reply; a nil element is "" or 0.
func laneStr(m valkey.ValkeyMessage) string {
	s, _ := m.ToString()
	return s
}

func laneNum(m valkey.ValkeyMessage) int64 {
	if m.IsNil() {
		return 0
	}
	n, _ := m.AsInt64()
	return n
}
