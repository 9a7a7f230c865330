package wire

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strconv"

	"github.com/valkey-io/valkey-go"
)

//go:embed lua/stream_append.lua
var streamAppendBody string

//go:embed lua/ids_prelude.lua
var idsPreludeSrc string

// streamAppendSrc is the append script: the id law's arithmetic
// (ids_prelude.lua, shared with the dcb append script), then its body.
var streamAppendSrc = idsPreludeSrc + "\n" + streamAppendBody

// streamAppendLua appends records with engine-arbitrated ids, idempotency
// keys and an expected top, all in one script on the stream's slot.
var streamAppendLua = NewScript(streamAppendSrc)

// StreamAppendSource returns the source of the append script, for
// documentation and for tests.
func StreamAppendSource() string { return streamAppendSrc }

// Append modes of [AppendReq].
const (
	// ModeArbitrate keeps a proposed id the engine accepts and otherwise
	// chooses the engine's next id above the stream top that is not
	// earlier than the engine's clock (node 1023, from the queue's cell).
	ModeArbitrate = 'a'
	// ModeContended is ModeArbitrate on a stream known to be contended: the
	// script reads the top before it tries the proposal.
	ModeContended = 'h'
	// ModeExact appends the caller's id as given or refuses it.
	ModeExact = 'i'
)

// ExpectEmpty is the [AppendReq] Expect value that requires the stream to
// hold no entry.
const ExpectEmpty = "-"

// AppendReq is one call of the append script.
type AppendReq struct {
	Key       string // the stream
	Cell      string // the queue's engine id cell, on the stream's slot
	IdemKey   string // "" for none; on the stream's slot
	Mode      byte   // ModeArbitrate, ModeContended or ModeExact
	Node      int    // the writer's node id (a top of it is the writer's own)
	OwnTop    string // the engine's last chosen id for this writer on Key, "" for none (also its own)
	MaxSkewMs int64  // ids and tops further ahead of the engine clock are refused
	LeadMs    int64  // ModeArbitrate: a proposal further ahead is replaced
	Expect    string // "" no check, ExpectEmpty, or the entry id the last entry must have
	WindowMs  int64  // the idempotency key's lifetime
	EntryIDs  []string
	Receipts  []string
	Pairs     [][]string
}

// Append outcomes of [AppendReply].
const (
	AppendOK       = "ok"
	AppendDup      = "dup"
	AppendConflict = "conflict"
	AppendSkew     = "skew"
	AppendNonMono  = "nonmono"
)

// AppendReply is the script's answer.
type AppendReply struct {
	Status   string
	EngineUs int64    // the engine's clock (TIME) in Unix microseconds
	Refused  int64    // proposals the script replaced (refused, ahead, or below the top)
	Foreign  bool     // ok: a proposal fell below a top of another node (the stream is contended)
	Receipts []string // ok: one per record; dup: the stored receipts, concatenated in one string
	Top      string   // conflict: the last entry id, "" when the stream is empty
	SkewTop  bool     // skew: the stream top (true) or the given id (false) is ahead
	SkewMs   int64    // skew: the instant refused, Unix ms
}

// StreamAppend runs the append script.
func (w *Conn) StreamAppend(ctx context.Context, r *AppendReq) (AppendReply, error) {
	keys := []string{r.Key, r.Cell}
	if r.IdemKey != "" {
		keys = append(keys, r.IdemKey)
	}
	n := 8
	for _, p := range r.Pairs {
		n += 3 + len(p)
	}
	args := make([]string, 0, n)
	args = append(args, string(r.Mode), strconv.Itoa(r.Node), itoa(r.MaxSkewMs), itoa(r.LeadMs),
		r.Expect, itoa(max(r.WindowMs, 1)), strconv.Itoa(len(r.EntryIDs)), r.OwnTop)
	for i := range r.EntryIDs {
		args = append(args, r.EntryIDs[i], r.Receipts[i], strconv.Itoa(len(r.Pairs[i])))
		args = append(args, r.Pairs[i]...)
	}
	arr, err := streamAppendLua.s.Exec(ctx, w.c, keys, args).ToArray()
	if err != nil {
		return AppendReply{}, convert(err)
	}
	return decodeAppend(arr)
}

func decodeAppend(arr []valkey.ValkeyMessage) (AppendReply, error) {
	if len(arr) < 3 {
		return AppendReply{}, fmt.Errorf("echomq: decode append reply: %d elements", len(arr))
	}
	var rep AppendReply
	var err error
	if rep.Status, err = arr[0].ToString(); err != nil {
		return rep, fmt.Errorf("echomq: decode append reply: %w", err)
	}
	sec, err1 := strconv.ParseInt(laneStr(arr[1]), 10, 64)
	usec, err2 := strconv.ParseInt(laneStr(arr[2]), 10, 64)
	if err1 != nil || err2 != nil {
		return rep, fmt.Errorf("echomq: decode append reply: engine time %q %q", laneStr(arr[1]), laneStr(arr[2]))
	}
	rep.EngineUs = sec*1_000_000 + usec
	rest := arr[3:]
	switch rep.Status {
	case AppendOK:
		if len(rest) < 2 {
			return rep, errors.New("echomq: decode append reply: no refusal counts")
		}
		rep.Refused = laneNum(rest[0])
		rep.Foreign = laneNum(rest[1]) != 0
		rep.Receipts = make([]string, len(rest)-2)
		for i := range rep.Receipts {
			rep.Receipts[i] = laneStr(rest[i+2])
		}
	case AppendDup:
		if len(rest) != 1 {
			return rep, errors.New("echomq: decode append reply: dup without receipts")
		}
		rep.Receipts = []string{laneStr(rest[0])}
	case AppendConflict:
		if len(rest) != 1 {
			return rep, errors.New("echomq: decode append reply: conflict without top")
		}
		rep.Top = laneStr(rest[0])
	case AppendSkew:
		if len(rest) != 2 {
			return rep, errors.New("echomq: decode append reply: skew without instant")
		}
		rep.SkewTop = laneStr(rest[0]) == "top"
		rep.SkewMs = laneNum(rest[1])
	case AppendNonMono:
	default:
		return rep, fmt.Errorf("echomq: decode append reply: status %q", rep.Status)
	}
	return rep, nil
}

// Time returns the engine's clock (TIME) in Unix microseconds.
func (w *Conn) Time(ctx context.Context) (int64, error) {
	s, err := w.c.Do(ctx, w.c.B().Time().Build()).AsStrSlice()
	if err != nil {
		return 0, convert(err)
	}
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

// PTTL returns the remaining time to live of key in milliseconds: -1 when
// it has none, -2 when it is absent.
func (w *Conn) PTTL(ctx context.Context, key string) (int64, error) {
	n, err := w.c.Do(ctx, w.c.B().Pttl().Key(key).Build()).AsInt64()
	return n, convert(err)
}

//go:embed lua/stream_append_keyed.lua
var streamAppendKeyedSrc string

// streamAppendKeyedLua is the lean append of one keyed record.
var streamAppendKeyedLua = NewScript(streamAppendKeyedSrc)

// StreamAppendKeyed appends one record under entryID with receipt, unless
// idemKey already names an append (then it returns AppendDup and the stored
// receipts); AppendNonMono when the stream top is not below entryID. It
// writes the record and the key in one script, atomically.
func (w *Conn) StreamAppendKeyed(ctx context.Context, stream, idemKey, entryID, receipt string, windowMs int64, pairs []string) (status, stored string, err error) {
	args := make([]string, 0, 3+len(pairs))
	args = append(args, entryID, receipt, itoa(max(windowMs, 1)))
	args = append(args, pairs...)
	arr, err := streamAppendKeyedLua.s.Exec(ctx, w.c, []string{stream, idemKey}, args).ToArray()
	if err != nil {
		return "", "", convert(err)
	}
	return decodeAppendKeyed(arr)
}

func decodeAppendKeyed(arr []valkey.ValkeyMessage) (status, stored string, err error) {
	if len(arr) == 0 {
		return "", "", errors.New("echomq: decode keyed append reply: empty")
	}
	if status, err = arr[0].ToString(); err != nil {
		return "", "", fmt.Errorf("echomq: decode keyed append reply: %w", err)
	}
	switch {
	case status == AppendOK && len(arr) == 1, status == AppendNonMono && len(arr) == 1:
		return status, "", nil
	case status == AppendDup && len(arr) == 2:
		return status, laneStr(arr[1]), nil
	}
	return "", "", fmt.Errorf("echomq: decode keyed append reply: %q with %d elements", status, len(arr))
}
