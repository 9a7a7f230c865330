package wire

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/valkey-io/valkey-go"
)

// Entry is one stream entry as the engine returns it: its entry id and its
// field/value pairs, flat and in stored order.
type Entry struct {
	ID     string
	Fields []string
}

// xadd builds XADD key <entry id> id <receipt> <pairs…>: the receipt field
// first, then the payload, without copying the payload into a new slice.
func (w *Conn) xadd(key, entryID, receipt string, pairs []string) valkey.Completed {
	return w.c.B().Arbitrary("XADD").Keys(key).Args(entryID, "id", receipt).Args(pairs...).Build()
}

// XAdd appends one entry with an explicit entry id, the receipt as its first
// field "id" and then the payload pairs.
func (w *Conn) XAdd(ctx context.Context, key, entryID, receipt string, pairs []string) error {
	return convert(w.c.Do(ctx, w.xadd(key, entryID, receipt, pairs)).Error())
}

// XAddMulti appends several entries (each with its whole field list) to one
// key in one pipeline and returns each entry's outcome.
func (w *Conn) XAddMulti(ctx context.Context, key string, entryIDs []string, fields [][]string) []error {
	cmds := make(valkey.Commands, len(entryIDs))
	for i := range entryIDs {
		cmds[i] = w.c.B().Arbitrary("XADD").Keys(key).Args(entryIDs[i]).Args(fields[i]...).Build()
	}
	errs := make([]error, len(entryIDs))
	for i, r := range w.c.DoMulti(ctx, cmds...) {
		errs[i] = convert(r.Error())
	}
	return errs
}

// XAddReceipts appends several entries to one key in one pipeline, each with
// its receipt as the first field, and returns each entry's outcome.
func (w *Conn) XAddReceipts(ctx context.Context, key string, entryIDs, receipts []string, pairs [][]string) []error {
	cmds := make(valkey.Commands, len(entryIDs))
	for i := range entryIDs {
		cmds[i] = w.xadd(key, entryIDs[i], receipts[i], pairs[i])
	}
	errs := make([]error, len(entryIDs))
	for i, r := range w.c.DoMulti(ctx, cmds...) {
		errs[i] = convert(r.Error())
	}
	return errs
}

// XRange reads [from, to] (XRANGE syntax) oldest first, or newest first when
// rev is set; count <= 0 means no limit.
func (w *Conn) XRange(ctx context.Context, key, from, to string, count int64, rev bool) ([]Entry, error) {
	cmd, args := "XRANGE", []string{from, to}
	if rev {
		cmd, args = "XREVRANGE", []string{to, from}
	}
	if count > 0 {
		args = append(args, "COUNT", itoa(count))
	}
	arr, err := w.c.Do(ctx, w.c.B().Arbitrary(cmd).Keys(key).Args(args...).ReadOnly()).ToArray()
	if err != nil {
		return nil, convert(err)
	}
	return decodeEntries(arr)
}

// XRead blocks up to block for entries of key after the entry id after and
// returns at most count of them; nil when the block timed out.
func (w *Conn) XRead(ctx context.Context, key, after string, count int64, block time.Duration) ([]Entry, error) {
	cmd := w.c.B().Xread().Count(count).Block(block.Milliseconds()).Streams().Key(key).Id(after).Build()
	msg, err := w.c.Do(withBlock(ctx, block), cmd).ToMessage()
	if isNil(err) {
		return nil, nil
	}
	if err != nil {
		return nil, convert(err)
	}
	return decodeStreamsReply(msg)
}

// decodeStreamsReply decodes the reply of XREAD/XREADGROUP for one key: a
// map {key: entries} in RESP3, an array [[key, entries]] in RESP2.
func decodeStreamsReply(msg valkey.ValkeyMessage) ([]Entry, error) {
	if msg.IsNil() {
		return nil, nil
	}
	if m, err := msg.AsMap(); err == nil {
		for _, v := range m {
			arr, err := v.ToArray()
			if err != nil {
				return nil, fmt.Errorf("echomq: decode streams reply: %w", err)
			}
			return decodeEntries(arr)
		}
		return nil, nil
	}
	outer, err := msg.ToArray()
	if err != nil {
		return nil, fmt.Errorf("echomq: decode streams reply: %w", err)
	}
	if len(outer) == 0 {
		return nil, nil
	}
	// One stream was read: its reply is the first (and only) pair.
	pair, err := outer[0].ToArray()
	if err != nil || len(pair) != 2 {
		return nil, errors.New("echomq: decode streams reply: want [key, entries]")
	}
	arr, err := pair[1].ToArray()
	if err != nil {
		return nil, fmt.Errorf("echomq: decode streams reply: %w", err)
	}
	return decodeEntries(arr)
}

// decodeEntries decodes [[id, [f, v, …]], …]. An entry whose data is gone
// (a pending entry trimmed away) decodes with nil Fields.
func decodeEntries(arr []valkey.ValkeyMessage) ([]Entry, error) {
	out := make([]Entry, len(arr))
	for i := range arr {
		e, err := decodeEntry(&arr[i])
		if err != nil {
			return nil, err
		}
		out[i] = e
	}
	return out, nil
}

func decodeEntry(m *valkey.ValkeyMessage) (Entry, error) {
	pair, err := m.ToArray()
	if err != nil || len(pair) != 2 {
		return Entry{}, errors.New("echomq: decode entry: want [id, fields]")
	}
	id, err := pair[0].ToString()
	if err != nil {
		return Entry{}, fmt.Errorf("echomq: decode entry id: %w", err)
	}
	if pair[1].IsNil() {
		return Entry{ID: id}, nil
	}
	fields, err := pair[1].AsStrSlice()
	if err != nil {
		return Entry{}, fmt.Errorf("echomq: decode entry fields: %w", err)
	}
	if len(fields)%2 != 0 {
		return Entry{}, errors.New("echomq: decode entry fields: odd number of strings")
	}
	return Entry{ID: id, Fields: fields}, nil
}

// XTrim runs XTRIM key <strategy> <~|=> <threshold> and returns how many
// entries it removed.
func (w *Conn) XTrim(ctx context.Context, key, strategy string, exact bool, threshold string) (int64, error) {
	op := "~"
	if exact {
		op = "="
	}
	n, err := w.c.Do(ctx, w.c.B().Arbitrary("XTRIM").Keys(key).Args(strategy, op, threshold).Build()).AsInt64()
	return n, convert(err)
}

// XLen returns the number of entries in the stream (0 when absent).
func (w *Conn) XLen(ctx context.Context, key string) (int64, error) {
	n, err := w.c.Do(ctx, w.c.B().Xlen().Key(key).Build()).AsInt64()
	return n, convert(err)
}

// StreamInfo is the part of XINFO STREAM EchoMQ uses.
type StreamInfo struct {
	Length          int64
	LastGeneratedID string
	First, Last     *Entry
}

// XInfoStream returns XINFO STREAM of key, false when the key is absent.
func (w *Conn) XInfoStream(ctx context.Context, key string) (StreamInfo, bool, error) {
	m, err := w.c.Do(ctx, w.c.B().XinfoStream().Key(key).Build()).AsMap()
	if err != nil {
		var se *ServerError
		if err = convert(err); errors.As(err, &se) && se.Prefix == "ERR" && containsNoSuchKey(se.Message) {
			return StreamInfo{}, false, nil
		}
		return StreamInfo{}, false, err
	}
	var info StreamInfo
	if v, ok := m["length"]; ok {
		info.Length, _ = v.AsInt64()
	}
	if v, ok := m["last-generated-id"]; ok {
		info.LastGeneratedID, _ = v.ToString()
	}
	for name, dst := range map[string]**Entry{"first-entry": &info.First, "last-entry": &info.Last} {
		if v, ok := m[name]; ok && !v.IsNil() {
			if e, err := decodeEntry(&v); err == nil {
				*dst = &e
			}
		}
	}
	return info, true, nil
}

func containsNoSuchKey(msg string) bool {
	for i := 0; i+len("no such key") <= len(msg); i++ {
		if msg[i:i+len("no such key")] == "no such key" {
			return true
		}
	}
	return false
}
