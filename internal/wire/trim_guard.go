package wire

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
)

//go:embed lua/trim_guard.lua
var guardedTrimBody string

//go:embed lua/dcb_unindex.lua
var dcbUnindexSrc string

//go:embed lua/dcb_trim.lua
var dcbTrimBody string

// guardedTrimSrc is the guard after the index upkeep of dcb_unindex.lua.
var guardedTrimSrc = dcbUnindexSrc + "\n" + guardedTrimBody

// dcbTrimLua is an exact trim that keeps the queue's tag index in step.
var dcbTrimLua = NewScript(dcbUnindexSrc + "\n" + dcbTrimBody)

// guardedTrimLua: KEYS stream, watermark cache, archiver lease, the
// queue's tagged types set and floor hash; ARGV strategy, "~"|"=",
// threshold, force ("0"|"1"), the watermark the caller read ("" for none),
// its entry id, the queue's key prefix, the stream name. A stream holding
// tagged events loses the index entries of what the trim removes in the
// same script (and is trimmed exactly). The check and the trim are one step,
// so no archive cycle can slip between them.
//
// Unforced: a watermark or a lease refuses the trim. Forced: the caller
// must have read the current watermark (else "moved", and it reads again);
// the reply counts the removed entries above it, as the entries above W
// before the trim minus those after. Counting what lies at or below W pages
// through that part only, which the archiver keeps trimmed, so it is short.
var guardedTrimLua = NewScript(guardedTrimSrc)

// TrimGuard is the outcome of [Conn.GuardedTrim].
type TrimGuard struct {
	// Refused is "archived" (Watermark holds W), "leased", "moved" (a
	// forced trim read a stale watermark; Watermark holds the current one)
	// or "" when the trim ran.
	Refused   string
	Watermark string
	Removed   int64
	// Unarchived is how many removed entries lay above the watermark (a
	// forced trim of a stream under archive control).
	Unarchived int64
}

// GuardedTrim runs XTRIM on stream unless it is under archive control
// (archived holds a watermark, or lease exists), or with force even then,
// counting the unarchived entries it removes. w is the watermark the
// caller read and wEntry its entry id (both "" when absent).
func (w *Conn) GuardedTrim(ctx context.Context, stream, archived, lease string, ix TrimIndex, strategy string, exact bool, threshold string, force bool, wm, wEntry string) (TrimGuard, error) {
	op, f := "~", "0"
	if exact {
		op = "="
	}
	if force {
		f = "1"
	}
	if wEntry == "" {
		wEntry = "0-0"
	}
	r, err := w.Run(ctx, guardedTrimLua, []string{stream, archived, lease, ix.Types, ix.Floor}, []string{strategy, op, threshold, f, wm, wEntry, ix.Prefix, ix.Name})
	if err != nil {
		return TrimGuard{}, err
	}
	return decodeTrimGuard(r)
}

// decodeTrimGuard decodes the script's reply.
func decodeTrimGuard(r any) (TrimGuard, error) {
	a, ok := r.([]any)
	if !ok || len(a) < 2 {
		return TrimGuard{}, fmt.Errorf("echomq: decode guarded trim reply %T", r)
	}
	tag, ok := a[0].(string)
	if !ok {
		return TrimGuard{}, fmt.Errorf("echomq: decode guarded trim tag %T", a[0])
	}
	switch tag {
	case "archived", "leased", "moved":
		s, _ := a[1].(string)
		return TrimGuard{Refused: tag, Watermark: s}, nil
	case "ok":
		if len(a) != 3 {
			return TrimGuard{}, fmt.Errorf("echomq: decode guarded trim reply of %d items", len(a))
		}
		n, ok1 := toInt64(a[1])
		u, ok2 := toInt64(a[2])
		if !ok1 || !ok2 || n < 0 || u < 0 || u > n {
			return TrimGuard{}, fmt.Errorf("echomq: decode guarded trim counts %v, %v", a[1], a[2])
		}
		return TrimGuard{Removed: n, Unarchived: u}, nil
	}
	return TrimGuard{}, fmt.Errorf("echomq: decode guarded trim tag %q", tag)
}

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case string:
		n, err := strconv.ParseInt(x, 10, 64)
		return n, err == nil
	}
	return 0, false
}

// TrimIndex names the tag index a trim of one stream keeps in step: the
// queue's key prefix, tagged types set and floor hash, and the stream's
// name.
type TrimIndex struct {
	Prefix, Types, Floor, Name string
}

// IndexedTrim trims stream exactly (XTRIM <strategy> = <threshold>) and
// removes the index entries of the tagged events it removes, raising the
// stream's floor, in one script. It returns how many entries it removed.
func (w *Conn) IndexedTrim(ctx context.Context, stream string, ix TrimIndex, strategy, threshold string) (int64, error) {
	r, err := w.Run(ctx, dcbTrimLua, []string{stream, ix.Types, ix.Floor}, []string{ix.Prefix, ix.Name, strategy, threshold})
	if err != nil {
		return 0, err
	}
	n, ok := toInt64(r)
	if !ok {
		return 0, fmt.Errorf("echomq: decode indexed trim reply %T", r)
	}
	return n, nil
}
