package archive_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/projection"
	"github.com/echomq/echomq/retention"
)

// roomV3 is the current shape of a room-opened event. v1 called the set
// "theme"; v2 renamed it "set"; v3 renamed "seats" to "capacity" and added
// "mode" (v1 and v2 rooms were all classic).
type roomV3 struct {
	Room     string `json:"room"`
	Set      string `json:"set"`
	Capacity int    `json:"capacity"`
	Mode     string `json:"mode"`
}

var roomUpcasters = []echomq.UpcastFunc{
	func(f echomq.Fields) (echomq.Fields, error) { return f.Rename("theme", "set"), nil },
	func(f echomq.Fields) (echomq.Fields, error) {
		return f.Rename("seats", "capacity").Default("mode", "classic"), nil
	},
}

// roomBoard is a projection state: per room its set, capacity and mode, and
// the seats per mode.
type roomBoard struct {
	Rooms map[string]string
	Seats map[string]int
}

func foldRooms(tv *projection.Typed[roomV3]) projection.Projection[roomBoard] {
	return projection.Projection[roomBoard]{
		Name: "rooms",
		Init: func() roomBoard { return roomBoard{Rooms: map[string]string{}, Seats: map[string]int{}} },
		Apply: projection.TypedApply(tv, func(s roomBoard, _ projection.Event, v roomV3) roomBoard {
			s.Rooms[v.Room] = fmt.Sprintf("%s/%d/%s", v.Set, v.Capacity, v.Mode)
			s.Seats[v.Mode] += v.Capacity
			return s
		}),
	}
}

// TestUpcastAcrossArchiveSeam is the acceptance of upcasting: v1 events
// are archived (and trimmed from the live stream), v2 events are live, v3
// events are appended through the typed view. A projection over the merged
// archive + live read folds to the same state as the same facts written as
// v3 to a fresh stream; a consumer with the typed handler sees v3 values
// for every version.
func TestUpcastAcrossArchiveSeam(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	q := echomqtest.Queue(t)
	old := c.Stream(q, "room-opened")
	for i := range 6 {
		_, err := old.Append(ctx, echomq.F("room", fmt.Sprintf("R%d", i), "theme", "animals", "seats", strconv.Itoa(2+i)), nil)
		require.NoError(t, err)
	}
	a := newArchiver(t, c, newStore(t, "fs"), nil)
	res, err := a.Cycle(ctx, archive.Policy{Queue: q, Stream: "room-opened", Keep: retention.MaxLen(0)})
	require.NoError(t, err)
	require.Equal(t, 6, int(res.Folded), "every v1 event archived")
	live, err := old.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Empty(t, live, "and trimmed from the live stream")
	for i := 6; i < 10; i++ {
		_, err := old.Append(ctx, echomq.F("room", fmt.Sprintf("R%d", i), "set", "food", "seats", strconv.Itoa(2+i), echomq.VersionField, "2"), nil)
		require.NoError(t, err)
	}
	tv := echomq.NewTyped[roomV3](old, nil, &echomq.TypedOpts{Upcasters: roomUpcasters})
	for i := 10; i < 13; i++ {
		_, err := tv.Append(ctx, roomV3{Room: fmt.Sprintf("R%d", i), Set: "flags", Capacity: 2 + i, Mode: "blind"}, nil)
		require.NoError(t, err)
	}

	// The same facts, written as v3 from the start.
	fresh := echomq.NewTyped[roomV3](c.Stream(q, "room-opened-v3"), nil, &echomq.TypedOpts{Upcasters: roomUpcasters})
	for i := range 13 {
		v := roomV3{Room: fmt.Sprintf("R%d", i), Set: "animals", Capacity: 2 + i, Mode: "classic"}
		switch {
		case i >= 10:
			v.Set, v.Mode = "flags", "blind"
		case i >= 6:
			v.Set = "food"
		}
		_, err := fresh.Append(ctx, v, nil)
		require.NoError(t, err)
	}

	merged := projection.NewTyped[roomV3](tv)
	got, err := projection.Fold(ctx, projection.All, foldRooms(merged), merged.Source(a.Reader(q, "room-opened")))
	require.NoError(t, err)
	direct := projection.NewTyped[roomV3](fresh)
	want, err := projection.Fold(ctx, projection.All, foldRooms(direct), direct.Source(fresh.Stream()))
	require.NoError(t, err)
	require.Len(t, got.Rooms, 13)
	require.Equal(t, want, got, "the merged, upcast fold equals the fold of the facts written as v3")

	// Typed reads over the merged reader upcast too.
	evs, err := tv.Over(a.Reader(q, "room-opened")).Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 13)
	require.Equal(t, roomV3{"R0", "animals", 2, "classic"}, evs[0].Value)
	require.Equal(t, 1, evs[0].Version)
	require.Equal(t, 2, evs[6].Version)
	require.Equal(t, 3, evs[12].Version)

	// A consumer with the typed handler: live v2 and v3 entries, upcast.
	got3 := make(chan roomV3, 16)
	cons, err := c.Consumer(&echomq.ConsumerConfig{
		Queue: q, Stream: "room-opened", Group: "g", Start: echomq.StartHead,
		Handle: tv.Handler(func(_ context.Context, d echomq.TypedDelivery[roomV3]) error { got3 <- d.Value; return nil }),
	})
	require.NoError(t, err)
	require.NoError(t, cons.Start(ctx))
	defer func() { require.NoError(t, cons.Stop(ctx)) }()
	require.Equal(t, roomV3{"R6", "food", 8, "classic"}, echomqtest.Recv(t, got3, 30*time.Second, "R6's delivery"))
}

// TestTypedFoldStopsOnDecodeFailure: a typed fold over a stream with an
// entry that does not decode ends with the DecodeError, never skipping it.
func TestTypedFoldStopsOnDecodeFailure(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	c := newClient(t)
	s := c.Stream(echomqtest.Queue(t), "room-opened")
	_, err := s.Append(ctx, echomq.F("room", "R1", "capacity", "lots", echomq.VersionField, "3"), nil)
	require.NoError(t, err)
	tv := projection.NewTyped[roomV3](echomq.NewTyped[roomV3](s, nil, &echomq.TypedOpts{Upcasters: roomUpcasters}))
	_, err = projection.Fold(ctx, projection.All, foldRooms(tv), tv.Source(s))
	require.ErrorIs(t, err, echomq.ErrDecode)
}
