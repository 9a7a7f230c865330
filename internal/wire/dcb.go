package wire

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strconv"

	"github.com/valkey-io/valkey-go"
)

// The dcb scripts live in lua/dcb_*.lua: the prelude (the query scan over
// the tag index) followed by each body.

//go:embed lua/dcb_*.lua
var dcbLua embed.FS

var (
	dcbAppendLua = dcbScript("append")
	dcbReadLua   = dcbScript("read")
)

type dcbSrc struct {
	*Script
	src string
}

func dcbScript(name string) dcbSrc {
	prelude, err := dcbLua.ReadFile("lua/dcb_prelude.lua")
	if err != nil {
		panic(err)
	}
	body, err := dcbLua.ReadFile("lua/dcb_" + name + ".lua")
	if err != nil {
		panic(err)
	}
	src := string(prelude) + "\n" + string(body)
	return dcbSrc{Script: NewScript(src), src: src}
}

// DCBScriptSources returns the full source of the dcb scripts by name, for
// tests that lint them.
func DCBScriptSources() map[string]string {
	return map[string]string{"append": dcbAppendLua.src, "read": dcbReadLua.src}
}

// DCBKeys are the queue's keys every dcb script declares (all on the
// queue's slot; streams and index sets are built from Prefix).
type DCBKeys struct {
	Prefix string // "emq:{q}:"
	Pos    string // the position counter
	Floor  string // the floor hash
	Types  string // the set of tagged types
	Cell   string // the engine id cell
}

func (k *DCBKeys) list() []string { return []string{k.Pos, k.Floor, k.Types, k.Cell} }

// DCBItem is one item of a query: types (none: every tagged type) and the
// tags an event must all carry.
type DCBItem struct {
	Types []string
	Tags  []string
}

func appendQuery(args []string, items []DCBItem) []string {
	args = append(args, strconv.Itoa(len(items)))
	for _, it := range items {
		args = append(args, strconv.Itoa(len(it.Types)))
		args = append(args, it.Types...)
		args = append(args, strconv.Itoa(len(it.Tags)))
		args = append(args, it.Tags...)
	}
	return args
}

// DCBEvent is one event of a dcb append.
type DCBEvent struct {
	Stream string
	Tags   []string // canonical: sorted, distinct
	Joined string   // the tags as stored in the entry
	Fields []string
}

// DCBAppendReq is one call of the dcb append script.
type DCBAppendReq struct {
	Keys      DCBKeys
	IdemKey   string // "" none
	WindowMs  int64
	Expect    string // "" none, ExpectEmpty, or the first stream's top entry id
	MaxSkewMs int64
	LeadMs    int64
	Cond      bool // a condition: no event matching Query above After
	After     uint64
	Query     []DCBItem
	Events    []DCBEvent
}

// Outcomes of the dcb scripts.
const (
	DCBOK       = "ok"
	DCBConflict = "conflict"
	DCBPosition = "position"
	DCBDup      = "dup"
	DCBTop      = "top"
	DCBSkew     = "skew"
)

// DCBAppended is one appended event of a [DCBAppendReply].
type DCBAppended struct {
	Receipt  string
	EntryID  string
	Position uint64
}

// DCBAppendReply is the append script's answer.
type DCBAppendReply struct {
	Status   string
	EngineUs int64
	Appended []DCBAppended // ok
	// conflict: the first event matching the condition; position: the
	// refused bound ("ahead": the head, Stream ""; "floor": the stream's
	// floor).
	Stream   string
	EntryID  string
	Position uint64
	Kind     string // position: "ahead" or "floor"
	Stored   string // dup: the receipts of the first append, concatenated
	Top      string // top: the stream's top entry id, "" when empty
	SkewMs   int64  // skew: the top's instant
}

// DCBAppend runs the dcb append script.
func (w *Conn) DCBAppend(ctx context.Context, r *DCBAppendReq) (DCBAppendReply, error) {
	keys := r.Keys.list()
	if r.IdemKey != "" {
		keys = append(keys, r.IdemKey)
	}
	args := make([]string, 0, 16+len(r.Events)*8)
	args = append(args, r.Keys.Prefix, itoa(r.MaxSkewMs), itoa(r.LeadMs), "-1")
	if r.Cond {
		args = append(args, strconv.FormatUint(r.After, 10))
		args = appendQuery(args, r.Query)
	} else {
		args = append(args, "")
	}
	args = append(args, itoa(max(r.WindowMs, 1)), r.Expect, strconv.Itoa(len(r.Events)))
	for _, e := range r.Events {
		args = append(args, e.Stream, strconv.Itoa(len(e.Tags)))
		args = append(args, e.Tags...)
		args = append(args, e.Joined, strconv.Itoa(len(e.Fields)))
		args = append(args, e.Fields...)
	}
	arr, err := dcbAppendLua.s.Exec(ctx, w.c, keys, args).ToArray()
	if err != nil {
		return DCBAppendReply{}, convert(err)
	}
	return decodeDCBAppend(arr)
}

func decodeDCBAppend(arr []valkey.ValkeyMessage) (DCBAppendReply, error) {
	var rep DCBAppendReply
	if len(arr) < 1 {
		return rep, errors.New("echomq: decode dcb append reply: empty")
	}
	rep.Status = laneStr(arr[0])
	if rep.Status == DCBPosition {
		return rep, decodePosition(&rep.Kind, &rep.Stream, &rep.Position, arr)
	}
	if len(arr) < 3 {
		return rep, fmt.Errorf("echomq: decode dcb append reply: %d elements", len(arr))
	}
	rep.EngineUs = laneNum(arr[1])*1_000_000 + laneNum(arr[2])
	rest := arr[3:]
	switch rep.Status {
	case DCBOK:
		if len(rest)%3 != 0 {
			return rep, fmt.Errorf("echomq: decode dcb append reply: %d elements", len(arr))
		}
		rep.Appended = make([]DCBAppended, len(rest)/3)
		for i := range rep.Appended {
			rep.Appended[i] = DCBAppended{Receipt: laneStr(rest[3*i]), EntryID: laneStr(rest[3*i+1]), Position: uint64(laneNum(rest[3*i+2]))}
		}
	case DCBConflict:
		if len(rest) != 3 {
			return rep, errors.New("echomq: decode dcb append reply: conflict without its event")
		}
		rep.Stream, rep.EntryID = laneStr(rest[0]), laneStr(rest[1])
		rep.Position = parseUint(laneStr(rest[2]))
	case DCBDup, DCBTop:
		if len(rest) != 1 {
			return rep, fmt.Errorf("echomq: decode dcb append reply: %s without its value", rep.Status)
		}
		rep.Stored, rep.Top = laneStr(rest[0]), laneStr(rest[0])
	case DCBSkew:
		if len(rest) != 1 {
			return rep, errors.New("echomq: decode dcb append reply: skew without instant")
		}
		rep.SkewMs = int64(parseUint(laneStr(rest[0])))
	default:
		return rep, fmt.Errorf("echomq: decode dcb append reply: status %q", rep.Status)
	}
	return rep, nil
}

func decodePosition(kind, stream *string, pos *uint64, arr []valkey.ValkeyMessage) error {
	if len(arr) != 4 {
		return errors.New("echomq: decode dcb reply: position refusal without its bound")
	}
	*kind, *stream, *pos = laneStr(arr[1]), laneStr(arr[2]), parseUint(laneStr(arr[3]))
	return nil
}

func parseUint(s string) uint64 {
	n, _ := strconv.ParseUint(s, 10, 64)
	return n
}

// DCBReadReq is one call of the dcb read script.
type DCBReadReq struct {
	Keys   DCBKeys
	After  uint64 // exclusive
	Limit  int
	Budget int // index members each source may examine
	Query  []DCBItem
}

// DCBRead is one event of a [DCBReadReply].
type DCBRead struct {
	Stream   string
	Position uint64
	Entry    Entry
}

// DCBReadReply is the read script's answer.
type DCBReadReply struct {
	Status string // DCBOK or DCBPosition
	Head   uint64
	Next   uint64
	Events []DCBRead
	// position: the refusal.
	Kind, Stream string
	Position     uint64
}

// DCBReadQuery runs the dcb read script.
func (w *Conn) DCBReadQuery(ctx context.Context, r *DCBReadReq) (DCBReadReply, error) {
	args := make([]string, 0, 8)
	args = append(args, r.Keys.Prefix, strconv.FormatUint(r.After, 10), strconv.Itoa(r.Limit), strconv.Itoa(max(r.Budget, 1)))
	args = appendQuery(args, r.Query)
	arr, err := dcbReadLua.s.Exec(ctx, w.c, r.Keys.list(), args).ToArray()
	if err != nil {
		return DCBReadReply{}, convert(err)
	}
	var rep DCBReadReply
	if len(arr) < 1 {
		return rep, errors.New("echomq: decode dcb read reply: empty")
	}
	rep.Status = laneStr(arr[0])
	switch {
	case rep.Status == DCBPosition:
		return rep, decodePosition(&rep.Kind, &rep.Stream, &rep.Position, arr)
	case rep.Status != DCBOK || len(arr) < 3 || (len(arr)-3)%4 != 0:
		return rep, fmt.Errorf("echomq: decode dcb read reply: status %q, %d elements", rep.Status, len(arr))
	}
	rep.Head, rep.Next = parseUint(laneStr(arr[1])), parseUint(laneStr(arr[2]))
	rest := arr[3:]
	rep.Events = make([]DCBRead, len(rest)/4)
	for i := range rep.Events {
		fields, err := rest[4*i+3].AsStrSlice()
		if err != nil {
			return rep, fmt.Errorf("echomq: decode dcb read reply: %w", err)
		}
		rep.Events[i] = DCBRead{
			Stream: laneStr(rest[4*i]), Position: parseUint(laneStr(rest[4*i+2])),
			Entry: Entry{ID: laneStr(rest[4*i+1]), Fields: fields},
		}
	}
	return rep, nil
}
