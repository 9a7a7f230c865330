package wire

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"strconv"
	"strings"

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

// dcbScript is the dcb prelude and the body of script name; the append
// script also chooses ids, with the id law's arithmetic of
// ids_prelude.lua (the append script's own).
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
	if name == "append" {
		src = idsPreludeSrc + "\n" + src
	}
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
	// The proposed id ("" none: the engine chooses): the entry id and its
	// receipt, minted by the writer under its leased node, the call's in
	// mint order (see DCBAppendReq.ProposedMs).
	EntryID, Receipt string
}

// DCBGroup is one group of a dcb append call: events written atomically,
// on the condition (Cond) that no event matching Query lies above After.
type DCBGroup struct {
	Cond   bool
	After  uint64
	Query  []DCBItem
	Events []DCBEvent
}

// DCBAppendReq is one call of the dcb append script: groups decided in
// order, each on its own condition.
type DCBAppendReq struct {
	Keys      DCBKeys
	IdemKey   string // "" none; a single group only
	WindowMs  int64
	Expect    string // "" none, ExpectEmpty, or the first stream's top entry id; a single group only
	MaxSkewMs int64
	LeadMs    int64
	// ProposedMs is the latest instant of the events' proposed ids (0:
	// none proposed); the script tries them only while it lies within
	// LeadMs of the engine's clock. Every event has a proposal or none has.
	ProposedMs int64
	Groups     []DCBGroup
}

// Outcomes of the dcb scripts.
const (
	DCBOK       = "ok"
	DCBConflict = "conflict"
	DCBPosition = "position"
	DCBDup      = "dup"
	DCBTop      = "top"
	DCBSkew     = "skew"
	DCBErr      = "err"
)

// DCBAppended is one appended event of a [DCBResult].
type DCBAppended struct {
	Receipt  string
	EntryID  string
	Position uint64
}

// DCBResult is the outcome of one group.
type DCBResult struct {
	Status   string
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
	Err      string // err: the engine's error for a stream of the group
}

// DCBAppendReply is the append script's answer: one result per group.
type DCBAppendReply struct {
	EngineUs int64
	Results  []DCBResult
}

// DCBAppend runs the dcb append script.
func (w *Conn) DCBAppend(ctx context.Context, r *DCBAppendReq) (DCBAppendReply, error) {
	keys := r.Keys.list()
	if r.IdemKey != "" {
		keys = append(keys, r.IdemKey)
	}
	n := 8
	for _, g := range r.Groups {
		n += 2 + 4*len(g.Query)
		for _, e := range g.Events {
			n += 6 + len(e.Tags) + len(e.Fields)
		}
	}
	proposed := ""
	if r.ProposedMs > 0 {
		proposed = itoa(r.ProposedMs)
	}
	args := make([]string, 0, n)
	args = append(args, r.Keys.Prefix, itoa(r.MaxSkewMs), itoa(r.LeadMs), "-1",
		itoa(max(r.WindowMs, 1)), r.Expect, strconv.Itoa(len(r.Groups)), proposed)
	for _, g := range r.Groups {
		if g.Cond {
			args = append(args, strconv.FormatUint(g.After, 10))
			args = appendQuery(args, g.Query)
		} else {
			args = append(args, "")
		}
		args = append(args, strconv.Itoa(len(g.Events)))
		for _, e := range g.Events {
			args = append(args, e.Stream, e.EntryID, e.Receipt, strconv.Itoa(len(e.Tags)))
			for _, tag := range e.Tags {
				args = append(args, DCBIndexKey(r.Keys.Prefix, e.Stream, tag))
			}
			args = append(args, e.Joined, strconv.Itoa(len(e.Fields)))
			args = append(args, e.Fields...)
		}
	}
	arr, err := dcbAppendLua.s.Exec(ctx, w.c, keys, args).ToArray()
	if err != nil {
		return DCBAppendReply{}, convert(err)
	}
	return decodeDCBAppend(arr, r.Groups)
}

// DCBIndexKey is the index list of stream's events carrying tag, from the
// queue's key prefix: keyspace.DCBIndexKey's name (wire does not import
// keyspace; a test holds the two equal).
func DCBIndexKey(prefix, stream, tag string) string {
	return prefix + "dcb:ix:" + stream + ":" + tag
}

func decodeDCBAppend(arr []valkey.ValkeyMessage, groups []DCBGroup) (DCBAppendReply, error) {
	var rep DCBAppendReply
	if len(arr) < 2 {
		return rep, fmt.Errorf("echomq: decode dcb append reply: %d elements", len(arr))
	}
	sec, err1 := strconv.ParseInt(laneStr(arr[0]), 10, 64)
	usec, err2 := strconv.ParseInt(laneStr(arr[1]), 10, 64)
	if err1 != nil || err2 != nil {
		return rep, fmt.Errorf("echomq: decode dcb append reply: engine time %q %q", laneStr(arr[0]), laneStr(arr[1]))
	}
	rep.EngineUs = sec*1_000_000 + usec
	if len(arr)-2 != len(groups) {
		return rep, fmt.Errorf("echomq: decode dcb append reply: %d results for %d groups", len(arr)-2, len(groups))
	}
	rep.Results = make([]DCBResult, len(arr)-2)
	for i := range rep.Results {
		if first, err := arr[i+2].AsInt64(); err == nil {
			// Every event kept its proposed id: the first position alone.
			rep.Results[i] = DCBResult{Status: DCBOK, Appended: proposed(groups[i].Events, uint64(first))}
			continue
		}
		res, err := arr[i+2].ToArray()
		if err != nil {
			return rep, fmt.Errorf("echomq: decode dcb append reply: %w", err)
		}
		if rep.Results[i], err = decodeDCBResult(res, groups[i].Events); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

func decodeDCBResult(arr []valkey.ValkeyMessage, events []DCBEvent) (DCBResult, error) {
	var res DCBResult
	if len(arr) < 1 {
		return res, errors.New("echomq: decode dcb append result: empty")
	}
	res.Status = laneStr(arr[0])
	rest := arr[1:]
	want := map[string]int{DCBConflict: 3, DCBPosition: 3, DCBDup: 1, DCBTop: 1, DCBSkew: 1, DCBErr: 1}
	if n, ok := want[res.Status]; ok && len(rest) != n {
		return res, fmt.Errorf("echomq: decode dcb append result: %s with %d elements", res.Status, len(rest))
	}
	switch res.Status {
	case DCBOK:
		// The first position, then (index, receipt, entry id) of each event
		// whose id the engine chose; every other kept its proposal.
		if len(rest) < 1 || (len(rest)-1)%3 != 0 {
			return res, fmt.Errorf("echomq: decode dcb append result: %d elements", len(arr))
		}
		res.Appended = proposed(events, uint64(laneNum(rest[0])))
		for j := 1; j < len(rest); j += 3 {
			i := int(laneNum(rest[j])) - 1
			if i < 0 || i >= len(events) {
				return res, fmt.Errorf("echomq: decode dcb append result: event %d of %d", i+1, len(events))
			}
			res.Appended[i].Receipt, res.Appended[i].EntryID = laneStr(rest[j+1]), laneStr(rest[j+2])
		}
		for i, a := range res.Appended {
			if a.Receipt == "" {
				return res, fmt.Errorf("echomq: decode dcb append result: event %d without an id", i+1)
			}
		}
	case DCBConflict:
		res.Stream, res.EntryID, res.Position = laneStr(rest[0]), laneStr(rest[1]), parseUint(laneStr(rest[2]))
	case DCBPosition:
		res.Kind, res.Stream, res.Position = laneStr(rest[0]), laneStr(rest[1]), parseUint(laneStr(rest[2]))
	case DCBDup:
		res.Stored = laneStr(rest[0])
	case DCBTop:
		res.Top = laneStr(rest[0])
	case DCBSkew:
		res.SkewMs = int64(parseUint(laneStr(rest[0])))
	case DCBErr:
		res.Err = laneStr(rest[0])
	default:
		return res, fmt.Errorf("echomq: decode dcb append result: status %q", res.Status)
	}
	return res, nil
}

// proposed returns the events as appended with their proposed ids, at the
// positions from first on.
func proposed(events []DCBEvent, first uint64) []DCBAppended {
	out := make([]DCBAppended, len(events))
	for i, e := range events {
		out[i] = DCBAppended{Receipt: e.Receipt, EntryID: e.EntryID, Position: first + uint64(i)}
	}
	return out
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

// ScriptError is the error of an engine reply a script caught and
// returned as text (a dcb append's group whose stream holds another
// type): a [*ServerError], matching ErrWrongType and the like as the reply
// itself would.
func ScriptError(msg string) error {
	prefix, _, _ := strings.Cut(msg, " ")
	if !isPrefix(prefix) {
		prefix, msg = "ERR", "ERR "+msg
	}
	return &ServerError{Prefix: prefix, Message: msg}
}
