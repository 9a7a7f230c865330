package wire

import (
	"context"
	_ "embed"
)

// Under maxmemory with the noeviction policy the engine refuses, with an
// OOM reply, every command flagged as one that may grow memory (SET, XADD,
// HSET, XGROUP CREATE, …) and lets the others run (XACK, XTRIM, XDEL, DEL,
// PEXPIRE, reads). A script without shebang flags, as all of EchoMQ's
// are, is refused only at its first such command, and only when it has not
// written before: an engine cannot undo a script's first writes.
//
// The steps that free memory must therefore never start with a refused
// command. The archive cycle caches its watermark (a SET) between its
// manifest commit and its trim; setFreeingLua makes that SET start with a
// DEL of the same key, so a full engine still takes it (a few bytes that
// let the trim, which frees the archived entries, run).

//go:embed lua/set_freeing.lua
var setFreeingSrc string

// setFreeingLua: KEYS key; ARGV value. SET key value, written so that a
// full engine runs it (see above). DEL then SET is SET: the value is
// replaced and any time-to-live dropped, in one atomic step.
var setFreeingLua = NewScript(setFreeingSrc)

// SetFreeing stores a small string at key even while the engine is full:
// for the bookkeeping of a step that frees memory (the archive watermark
// cache), never for data.
func (w *Conn) SetFreeing(ctx context.Context, key, val string) error {
	_, err := w.Run(ctx, setFreeingLua, []string{key}, []string{val})
	return err
}
