package wire

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/valkey-io/valkey-go"
)

// PendingRow is one row of the extended XPENDING form.
type PendingRow struct {
	ID         string
	Consumer   string
	Idle       time.Duration
	Deliveries int64
}

// PendingRange is the extended XPENDING query; empty From/To mean "-"/"+",
// an empty Consumer all consumers, a zero MinIdle no IDLE filter.
type PendingRange struct {
	From, To string
	Count    int64
	Consumer string
	MinIdle  time.Duration
}

// XPending runs XPENDING key group [IDLE ms] from to count [consumer].
func (w *Conn) XPending(ctx context.Context, key, group string, q PendingRange) ([]PendingRow, error) {
	args := []string{group}
	if q.MinIdle > 0 {
		args = append(args, "IDLE", strconv.FormatInt(q.MinIdle.Milliseconds(), 10))
	}
	from, to := q.From, q.To
	if from == "" {
		from = "-"
	}
	if to == "" {
		to = "+"
	}
	args = append(args, from, to, strconv.FormatInt(q.Count, 10))
	if q.Consumer != "" {
		args = append(args, q.Consumer)
	}
	arr, err := w.c.Do(ctx, w.c.B().Arbitrary("XPENDING").Keys(key).Args(args...).ReadOnly()).ToArray()
	if err != nil {
		return nil, convert(err)
	}
	return decodePendingRows(arr)
}

// decodePendingRows decodes the rows of an extended XPENDING reply.
func decodePendingRows(arr []valkey.ValkeyMessage) ([]PendingRow, error) {
	rows := make([]PendingRow, 0, len(arr))
	for i := range arr {
		r, err := decodePendingRow(&arr[i])
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// XPendingIDs returns the pending row of each id (pipelined, one round
// trip); an id that is not pending is absent from the map.
func (w *Conn) XPendingIDs(ctx context.Context, key, group string, ids []string) (map[string]PendingRow, error) {
	out := make(map[string]PendingRow, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	cmds := make(valkey.Commands, len(ids))
	for i, id := range ids {
		cmds[i] = w.c.B().Arbitrary("XPENDING").Keys(key).Args(group, id, id, "1").ReadOnly()
	}
	for _, r := range w.c.DoMulti(ctx, cmds...) {
		arr, err := r.ToArray()
		if err != nil {
			return nil, convert(err)
		}
		for i := range arr {
			row, err := decodePendingRow(&arr[i])
			if err != nil {
				return nil, err
			}
			out[row.ID] = row
		}
	}
	return out, nil
}

func decodePendingRow(m *valkey.ValkeyMessage) (PendingRow, error) {
	f, err := m.ToArray()
	if err != nil || len(f) != 4 {
		return PendingRow{}, errors.New("echomq: decode xpending row: want [id, consumer, idle, count]")
	}
	var r PendingRow
	var idle int64
	if r.ID, err = f[0].ToString(); err == nil {
		if r.Consumer, err = f[1].ToString(); err == nil {
			if idle, err = f[2].AsInt64(); err == nil {
				r.Deliveries, err = f[3].AsInt64()
			}
		}
	}
	if err != nil {
		return PendingRow{}, fmt.Errorf("echomq: decode xpending row: %w", err)
	}
	r.Idle = time.Duration(idle) * time.Millisecond
	return r, nil
}

// GroupRow is one group of XINFO GROUPS. EntriesRead and Lag are -1 when
// the engine does not know them (or predates Redis 7).
type GroupRow struct {
	Name            string
	Consumers       int64
	Pending         int64
	LastDeliveredID string
	EntriesRead     int64
	Lag             int64
}

// XInfoGroups returns the groups of key; a missing key has none.
func (w *Conn) XInfoGroups(ctx context.Context, key string) ([]GroupRow, error) {
	arr, err := w.c.Do(ctx, w.c.B().XinfoGroups().Key(key).Build()).ToArray()
	if err != nil {
		var se *ServerError
		if err = convert(err); errors.As(err, &se) && se.Prefix == "ERR" && containsNoSuchKey(se.Message) {
			return nil, nil
		}
		return nil, err
	}
	return decodeInfoGroups(arr)
}

// decodeInfoGroups decodes an XINFO GROUPS reply.
func decodeInfoGroups(arr []valkey.ValkeyMessage) ([]GroupRow, error) {
	rows := make([]GroupRow, 0, len(arr))
	for i := range arr {
		m, err := arr[i].AsMap()
		if err != nil {
			return nil, fmt.Errorf("echomq: decode xinfo groups: %w", err)
		}
		r := GroupRow{EntriesRead: -1, Lag: -1}
		r.Name = groupStr(m, "name")
		r.Consumers = groupNum(m, "consumers", 0)
		r.Pending = groupNum(m, "pending", 0)
		r.LastDeliveredID = groupStr(m, "last-delivered-id")
		r.EntriesRead = groupNum(m, "entries-read", -1)
		r.Lag = groupNum(m, "lag", -1)
		rows = append(rows, r)
	}
	return rows, nil
}

// ConsumerRow is one consumer of XINFO CONSUMERS. Inactive is -1 when the
// engine does not report it (before Redis 7.2).
type ConsumerRow struct {
	Name     string
	Pending  int64
	Idle     time.Duration
	Inactive time.Duration
}

// XInfoConsumers returns the consumers of group; a missing group is
// [ErrGroupNotFound].
func (w *Conn) XInfoConsumers(ctx context.Context, key, group string) ([]ConsumerRow, error) {
	arr, err := w.c.Do(ctx, w.c.B().XinfoConsumers().Key(key).Group(group).Build()).ToArray()
	if err != nil {
		var se *ServerError
		if err = convert(err); errors.As(err, &se) && se.Prefix == "ERR" && containsNoSuchKey(se.Message) {
			return nil, &ServerError{Prefix: "NOGROUP", Message: "NOGROUP no such key " + key}
		}
		return nil, err
	}
	return decodeInfoConsumers(arr)
}

// decodeInfoConsumers decodes an XINFO CONSUMERS reply.
func decodeInfoConsumers(arr []valkey.ValkeyMessage) ([]ConsumerRow, error) {
	rows := make([]ConsumerRow, 0, len(arr))
	for i := range arr {
		m, err := arr[i].AsMap()
		if err != nil {
			return nil, fmt.Errorf("echomq: decode xinfo consumers: %w", err)
		}
		inactive := groupNum(m, "inactive", -2)
		r := ConsumerRow{
			Name:     groupStr(m, "name"),
			Pending:  groupNum(m, "pending", 0),
			Idle:     time.Duration(groupNum(m, "idle", 0)) * time.Millisecond,
			Inactive: -1,
		}
		if inactive >= 0 {
			r.Inactive = time.Duration(inactive) * time.Millisecond
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// groupStr returns the string at name, "" when absent or not a string.
func groupStr(m map[string]valkey.ValkeyMessage, name string) string {
	v, ok := m[name]
	if !ok {
		return ""
	}
	s, _ := v.ToString()
	return s
}

// groupNum returns the integer at name, def when absent, nil or not a number.
func groupNum(m map[string]valkey.ValkeyMessage, name string, def int64) int64 {
	v, ok := m[name]
	if !ok || v.IsNil() {
		return def
	}
	n, err := v.AsInt64()
	if err != nil {
		return def
	}
	return n
}
