package wire

import (
	"context"
	"errors"
	"fmt"
	"strconv"
)

// probeSha is the SHA1 of the empty string: no script the engine holds has
// it, so EVALSHA of it runs nothing, writes nothing, caches nothing, and
// replies NOSCRIPT where the caller may run scripts. A user whose ACL
// denies scripting (-@scripting) gets NOPERM; an engine without a script
// engine replies an unknown-command error.
const probeSha = "da39a3ee5e6b4b0d3255bfef95601890afd80709"

// Probe is what one start-up round trip learnt: the engine's clock, its
// INFO text and whether the caller may run scripts.
type Probe struct {
	// TimeUs is the engine's clock (TIME) in Unix microseconds.
	TimeUs int64
	// Info is the reply of INFO (the default sections), "" when InfoErr is
	// set.
	Info string
	// InfoErr is INFO's refusal, nil when it answered (a user whose ACL
	// lacks INFO, which the engine files under @dangerous).
	InfoErr error
	// ScriptErr is nil when the caller may run scripts, else the engine's
	// refusal of the side-effect-free EVALSHA probe.
	ScriptErr error
}

// Probe sends TIME, INFO and the scripting probe as one pipeline: the
// cost of learning the engine stays the round trip that reads its clock.
// The error is TIME's; INFO's and the probe's refusals are in the Probe.
func (w *Conn) Probe(ctx context.Context) (Probe, error) {
	rs := w.c.DoMulti(ctx,
		w.c.B().Time().Build(),
		w.c.B().Info().Build(),
		w.c.B().Evalsha().Sha1(probeSha).Numkeys(0).Build())
	var p Probe
	ts, err := rs[0].AsStrSlice()
	if err != nil {
		return p, convert(err)
	}
	if p.TimeUs, err = timeReply(ts); err != nil {
		return p, err
	}
	if p.Info, err = rs[1].ToString(); err != nil {
		p.InfoErr = convert(err)
	}
	if err := rs[2].Error(); err != nil {
		if se, ok := errors.AsType[*ServerError](convert(err)); !ok || se.Prefix != "NOSCRIPT" {
			p.ScriptErr = convert(err)
		}
	}
	return p, nil
}

// timeReply decodes TIME's reply into Unix microseconds.
func timeReply(s []string) (int64, error) {
	if len(s) != 2 {
		return 0, fmt.Errorf("echomq: decode TIME reply: %d elements", len(s))
	}
	sec, err1 := strconv.ParseInt(s[0], 10, 64)
	usec, err2 := strconv.ParseInt(s[1], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("echomq: decode TIME reply: %q", s)
	}
	return sec*1_000_000 + usec, nil
}

// InfoMemory returns the reply of INFO memory: the watcher's slow re-read
// of the memory figures and the eviction policy.
func (w *Conn) InfoMemory(ctx context.Context) (string, error) {
	s, err := w.c.Do(ctx, w.c.B().Info().Section("memory").Build()).ToString()
	return s, convert(err)
}
