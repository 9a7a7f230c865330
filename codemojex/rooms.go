package codemojex

import (
	"context"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/tables"
)

// RoomSpec is what an operator gives to create a room.
type RoomSpec struct {
	// Name is shown in the lobby: 1 to 64 printable characters.
	Name string `json:"name"`
	// Set names the emoji set. Defaults to "animals".
	Set string `json:"set"`
	// Mode is classic or blind. Defaults to classic.
	Mode rules.Mode `json:"mode"`
	// Duration is how long each game runs from its first join (1s to 30
	// days). Defaults to 24 hours.
	Duration time.Duration `json:"-"`
	// Prize is the diamonds each game pays its winners (0 to MaxAmount).
	Prize int64 `json:"prize"`
	// Fee is the price of a guess (1 to 1000), in keys, or in clips in a
	// free room. Defaults to 1.
	Fee int64 `json:"fee"`
	// Free rooms charge clips instead of keys.
	Free bool `json:"free"`
	// Cells plays each game on a random subset of that many cells of the
	// set (6 to the set's size). Defaults to 0: the whole set.
	Cells int `json:"cells"`
}

// MaxDuration is the longest a game may run.
const MaxDuration = 30 * 24 * time.Hour

// ParseDuration reads a room's game duration as an operator writes it
// ("90m", "1h30m", "35h"), in 1s to [MaxDuration]. Its
// [*echomq.ArgumentError] says what is wrong with s: not a duration at
// all, too short (0s included) or too long.
func ParseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil:
		return 0, badArg("duration", strconv.Quote(s)+" is not a duration: write it like 90m, 1h30m or 35h")
	case d < time.Second:
		return 0, badArg("duration", s+" is too short: a game runs 1s to 720h (such as 3m or 1h)")
	case d > MaxDuration:
		return 0, badArg("duration", s+" is too long: a game runs 1s to 720h")
	}
	return d, nil
}

func (e *Engine) checkSpec(s *RoomSpec) error {
	if s.Set == "" {
		s.Set = "animals"
	}
	if s.Mode == "" {
		s.Mode = rules.Classic
	}
	if s.Duration == 0 {
		s.Duration = 24 * time.Hour
	}
	if s.Fee == 0 {
		s.Fee = 1
	}
	if n := utf8.RuneCountInString(s.Name); !utf8.ValidString(s.Name) || n > 64 || strings.TrimSpace(s.Name) == "" || strings.IndexFunc(s.Name, unicode.IsControl) >= 0 {
		return badArg("name", "must be 1 to 64 printable characters")
	}
	set, err := e.Set(s.Set)
	if err != nil {
		return badArg("set", strconv.Quote(s.Set)+" is not an emoji set (have "+strings.Join(e.SetNames(), ", ")+")")
	}
	if _, err := rules.ParseMode(string(s.Mode)); err != nil {
		return badArg("mode", strconv.Quote(string(s.Mode))+" is not classic or blind")
	}
	if s.Duration < time.Second || s.Duration > MaxDuration {
		return badArg("duration", "must be 1s to 720h")
	}
	if s.Prize < 0 || s.Prize > MaxAmount {
		return badArg("prize", "must be 0.."+strconv.Itoa(MaxAmount))
	}
	if s.Fee < 1 || s.Fee > 1000 {
		return badArg("fee", "must be 1..1000")
	}
	if s.Cells != 0 && (s.Cells < rules.MinSetSize || s.Cells > set.Len()) {
		return badArg("cells", "must be 0 (the whole set) or "+strconv.Itoa(rules.MinSetSize)+".."+strconv.Itoa(set.Len()))
	}
	return nil
}

// CreateRoom creates a waiting room (an operator's act) and appends
// room-opened. It returns an [*echomq.ArgumentError] naming the first bad
// field of spec; nothing is written then.
func (e *Engine) CreateRoom(ctx context.Context, spec RoomSpec) (Room, error) {
	if err := e.checkSpec(&spec); err != nil {
		return Room{}, err
	}
	rid, err := e.mint(ctx, BrandRoom)
	if err != nil {
		return Room{}, err
	}
	return e.createRoom(ctx, spec, rid)
}

// createRoom writes the room of a checked spec under an id minted before
// (by this engine, or by shard 0 of a sharded game: see [Shards]).
func (e *Engine) createRoom(ctx context.Context, spec RoomSpec, rid string) (Room, error) {
	r := Room{
		ID: rid, Name: strings.TrimSpace(spec.Name), Set: spec.Set, Mode: spec.Mode,
		DurationMS: spec.Duration.Milliseconds(), Prize: spec.Prize, Fee: spec.Fee, Free: spec.Free,
		Cells: spec.Cells, Status: RoomWaiting, CreatedMS: e.nowMS(),
	}
	err := e.update(ctx, func(ctx context.Context, t *txn) error {
		if err := t.put(tableRooms, r.ID, r); err != nil {
			return err
		}
		_, err := t.append(ctx, StreamRoomOpened,
			"room", r.ID, "name", r.Name, "set", r.Set, "mode", string(r.Mode),
			"free", strconv.FormatBool(r.Free), "fee", itoa(r.Fee), "currency", string(r.Currency()),
			"prize", itoa(r.Prize), "duration_ms", itoa(r.DurationMS), "cells", strconv.Itoa(r.Cells))
		return err
	})
	if err != nil {
		return Room{}, err
	}
	return r, nil
}

// Room returns a room's record, or a [*NotFoundError].
func (e *Engine) Room(ctx context.Context, id string) (Room, error) {
	if err := checkID(id, BrandRoom); err != nil {
		return Room{}, err
	}
	r, ok, err := readJSON[Room](ctx, e, tableRooms, id)
	if err != nil {
		return Room{}, err
	}
	if !ok {
		return Room{}, notFound("room", id)
	}
	return r, nil
}

// Rooms returns every room, oldest first.
func (e *Engine) Rooms(ctx context.Context) ([]Room, error) {
	var out []Room
	for rec, err := range tables.New(e.client, e.queue, tableRooms).All(ctx) {
		if err != nil {
			return nil, err
		}
		var r Room
		if err := unmarshal(rec.Value, &r); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	// Room ids are minted in creation order.
	return out, nil
}
