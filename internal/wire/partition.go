package wire

import (
	"context"
	_ "embed"
	"errors"
	"strconv"
	"time"
)

//go:embed lua/partition_beat.lua
var partitionBeatSrc string

// partitionBeatLua: see the script's header.
var partitionBeatLua = NewScript(partitionBeatSrc)

// PartitionBeat is the reply of one [Conn.PartitionBeat].
type PartitionBeat struct {
	Now     int64          // the engine's clock, Unix ms
	Members []string       // live members, sorted
	Held    map[int]int64  // partition → fencing token, of the partitions the member holds after the beat
	Leases  map[int]string // partition → "owner|expiry|token", every lease of the group
}

// PartitionBeat runs one beat of member of a partitioned stream's group:
// it renews the membership (or ends it when memberTTL is 0), takes or
// extends the leases of want and gives back those of give, in one script
// on the slot of the two keys.
func (w *Conn) PartitionBeat(ctx context.Context, members, owners, member string, memberTTL, leaseTTL time.Duration, want, give []int) (PartitionBeat, error) {
	args := make([]string, 0, 4+len(want)+len(give))
	args = append(args, member, strconv.FormatInt(memberTTL.Milliseconds(), 10), strconv.FormatInt(leaseTTL.Milliseconds(), 10), strconv.Itoa(len(want)))
	for _, i := range want {
		args = append(args, strconv.Itoa(i))
	}
	for _, i := range give {
		args = append(args, strconv.Itoa(i))
	}
	r, err := w.Run(ctx, partitionBeatLua, []string{members, owners}, args)
	if err != nil {
		return PartitionBeat{}, err
	}
	return decodeBeat(r)
}

func decodeBeat(r any) (PartitionBeat, error) {
	arr, ok := r.([]any)
	if !ok || len(arr) != 4 {
		return PartitionBeat{}, errors.New("echomq: decode partition beat: want 4 parts")
	}
	var out PartitionBeat
	if out.Now, ok = arr[0].(int64); !ok {
		return PartitionBeat{}, errors.New("echomq: decode partition beat: bad clock")
	}
	ms, _ := arr[1].([]any)
	for _, m := range ms {
		s, _ := m.(string)
		out.Members = append(out.Members, s)
	}
	held, _ := arr[2].([]any)
	out.Held = make(map[int]int64, len(held)/2)
	for k := 0; k+1 < len(held); k += 2 {
		i, err1 := strconv.Atoi(asString(held[k]))
		tok, err2 := strconv.ParseInt(asString(held[k+1]), 10, 64)
		if err1 != nil || err2 != nil {
			return PartitionBeat{}, errors.New("echomq: decode partition beat: bad lease")
		}
		out.Held[i] = tok
	}
	all, _ := arr[3].([]any)
	out.Leases = make(map[int]string, len(all)/2)
	for k := 0; k+1 < len(all); k += 2 {
		i, err := strconv.Atoi(asString(all[k]))
		if err != nil {
			return PartitionBeat{}, errors.New("echomq: decode partition beat: bad partition")
		}
		out.Leases[i] = asString(all[k+1])
	}
	return out, nil
}

//go:embed lua/partition_group.lua
var partitionGroupSrc string

// partitionGroupLua: see the script's header.
var partitionGroupLua = NewScript(partitionGroupSrc)

// PartitionGroup reads a partitioned group's live members and every lease,
// writing nothing: the reply has the shape of a beat's, Held left empty.
func (w *Conn) PartitionGroup(ctx context.Context, members, owners string) (PartitionBeat, error) {
	r, err := w.Run(ctx, partitionGroupLua, []string{members, owners}, nil)
	if err != nil {
		return PartitionBeat{}, err
	}
	arr, ok := r.([]any)
	if !ok || len(arr) != 3 {
		return PartitionBeat{}, errors.New("echomq: decode partition group: want 3 parts")
	}
	return decodeBeat([]any{arr[0], arr[1], []any{}, arr[2]})
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

//go:embed lua/partition_meta.lua
var partitionMetaSrc string

// partitionMetaLua: see the script's header.
var partitionMetaLua = NewScript(partitionMetaSrc)

// PartitionsCreate stores counts at key when it is absent and returns what
// key holds after the call.
func (w *Conn) PartitionsCreate(ctx context.Context, key, counts string) (string, error) {
	r, err := w.Run(ctx, partitionMetaLua, []string{key}, []string{"create", counts})
	return asString(r), err
}

// PartitionsGrow appends count to the counts at key when key still holds
// read, and returns what key holds after the call ("" when absent).
func (w *Conn) PartitionsGrow(ctx context.Context, key, read string, count int) (string, error) {
	r, err := w.Run(ctx, partitionMetaLua, []string{key}, []string{"grow", read, strconv.Itoa(count)})
	return asString(r), err
}
