package wire

import (
	"context"

	"github.com/valkey-io/valkey-go"
)

// Script is a Lua script loaded once and called by SHA, with EVAL as the
// fallback when the engine does not have it (after a restart or failover).
type Script struct{ s *valkey.Lua }

// NewScript wraps the Lua source.
func NewScript(src string) *Script { return &Script{s: valkey.NewLuaScript(src)} }

// Run runs the script with keys (all on one slot) and args and returns the
// reply decoded to Go values (int64, string, []any, nil, ...).
func (w *Conn) Run(ctx context.Context, s *Script, keys, args []string) (any, error) {
	msg, err := s.s.Exec(ctx, w.c, keys, args).ToMessage()
	if err != nil {
		if isNil(err) {
			return nil, nil
		}
		return nil, convert(err)
	}
	return msg.ToAny()
}
