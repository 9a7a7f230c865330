package echomq_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/echomqtest"
)

type roomOpened struct {
	Room  string   `json:"room"`
	Set   string   `json:"set"`
	Seats int      `json:"seats"`
	Code  string   `json:"code"` // a string that looks like a number
	Tags  []string `json:"tags,omitempty"`
	Blind bool     `json:"blind"`
}

func TestJSONCodecLayouts(t *testing.T) {
	t.Parallel()
	v := roomOpened{Room: "ROM1", Set: `an "odd" set`, Seats: 4, Code: "007", Tags: []string{"a", "b"}, Blind: true}
	tests := []struct {
		name  string
		codec echomq.Codec[roomOpened]
		want  echomq.Fields
	}{
		{"fields", echomq.JSONFields[roomOpened](), echomq.F("room", "ROM1", "set", `an "odd" set`, "seats", "4", "code", "007", "tags", `["a","b"]`, "blind", "true")},
		{"payload", echomq.JSONPayload[roomOpened](""), echomq.F("payload", `{"room":"ROM1","set":"an \"odd\" set","seats":4,"code":"007","tags":["a","b"],"blind":true}`)},
		{"payload named", echomq.JSONPayload[roomOpened]("doc"), echomq.F("doc", `{"room":"ROM1","set":"an \"odd\" set","seats":4,"code":"007","tags":["a","b"],"blind":true}`)},
		{"zero value codec", &echomq.JSONCodec[roomOpened]{}, echomq.F("room", "ROM1", "set", `an "odd" set`, "seats", "4", "code", "007", "tags", `["a","b"]`, "blind", "true")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f, err := tt.codec.Encode(v)
			require.NoError(t, err)
			require.Equal(t, tt.want, f)
			back, err := tt.codec.Decode(f)
			require.NoError(t, err)
			require.Equal(t, v, back)
		})
	}
}

func TestJSONCodecRefuses(t *testing.T) {
	t.Parallel()
	_, err := echomq.JSONFields[int]().Encode(3)
	require.Error(t, err, "a number is not an object")
	_, err = echomq.JSONFields[roomOpened]().Decode(echomq.F("seats", "many"))
	require.Error(t, err)
	_, err = echomq.JSONPayload[roomOpened]("").Decode(echomq.F("room", "ROM1"))
	require.ErrorContains(t, err, `no "payload" field`)
}

func TestNewTypedBadInput(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL()})
	q := echomqtest.Queue(t)
	up := func(f echomq.Fields) (echomq.Fields, error) { return f, nil }
	tests := []struct {
		name string
		s    *echomq.Stream
		opts *echomq.TypedOpts
		want error
	}{
		{"bad stream name", c.Stream(q, "a:b"), nil, echomq.ErrInvalidName},
		{"nil stream", nil, nil, echomq.ErrInvalidArgument},
		{"negative version", c.Stream(q, "s"), &echomq.TypedOpts{Version: -1}, echomq.ErrInvalidArgument},
		{"too few upcasters", c.Stream(q, "s"), &echomq.TypedOpts{Version: 3, Upcasters: []echomq.UpcastFunc{up}}, echomq.ErrInvalidArgument},
		{"nil upcaster", c.Stream(q, "s"), &echomq.TypedOpts{Upcasters: []echomq.UpcastFunc{nil}}, echomq.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tv := echomq.NewTyped[roomOpened](tt.s, nil, tt.opts)
			require.ErrorIs(t, tv.Err(), tt.want)
			_, err := tv.Append(ctx, roomOpened{Room: "R"}, nil)
			require.ErrorIs(t, err, tt.want)
			for _, err := range tv.Scan(ctx, echomq.All, nil) {
				require.ErrorIs(t, err, tt.want)
			}
		})
	}
	evs, err := c.Stream(q, "s").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Empty(t, evs, "bad input writes nothing")
}

// TestTypedEncodeRefusesReserved: a value whose fields name "id" or, on a
// versioned view, the version field is refused before any I/O.
func TestTypedEncodeRefusesReserved(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL()})
	s := c.Stream(echomqtest.Queue(t), "s")
	_, err := echomq.NewTyped[map[string]string](s, nil, nil).Append(ctx, map[string]string{"id": "x"}, nil)
	require.ErrorIs(t, err, echomq.ErrReservedField)
	_, err = echomq.NewTyped[map[string]string](s, nil, &echomq.TypedOpts{Version: 1}).Append(ctx, map[string]string{echomq.VersionField: "2"}, nil)
	require.ErrorIs(t, err, echomq.ErrReservedField)
	evs, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Empty(t, evs)
}

// v1 named the set "theme"; v2 renamed it "set"; v3 renamed "seats" to
// "capacity" and added "mode".
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

// TestTypedUpcastsEveryVersion: v1 (no version field), v2 and v3 entries
// read back as v3 values through Read, Scan and Follow; untyped readers see
// the stored fields; an unknown future version is a DecodeError and the
// iteration goes on.
func TestTypedUpcastsEveryVersion(t *testing.T) {
	t.Parallel()
	c := connect(t, echomq.Config{URL: echomqtest.Shared(t).URL()})
	s := c.Stream(echomqtest.Queue(t), "room-opened")
	_, err := s.Append(ctx, echomq.F("room", "R1", "theme", "animals", "seats", "4"), nil)
	require.NoError(t, err)
	_, err = s.Append(ctx, echomq.F("room", "R2", "set", "food", "seats", "6", echomq.VersionField, "2"), nil)
	require.NoError(t, err)
	tv := echomq.NewTyped[roomV3](s, nil, &echomq.TypedOpts{Upcasters: roomUpcasters})
	require.Equal(t, 3, echomq.TypedVersion(tv))
	_, err = tv.Append(ctx, roomV3{Room: "R3", Set: "flags", Capacity: 8, Mode: "blind"}, nil)
	require.NoError(t, err)
	want := []roomV3{{"R1", "animals", 4, "classic"}, {"R2", "food", 6, "classic"}, {"R3", "flags", 8, "blind"}}

	evs, err := tv.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, evs, 3)
	for i, ev := range evs {
		require.Equal(t, want[i], ev.Value)
		require.Equal(t, i+1, ev.Version)
	}
	raw, err := s.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Equal(t, echomq.F("room", "R1", "theme", "animals", "seats", "4"), raw[0].Fields, "stored fields untouched by reads")
	require.Equal(t, echomq.F("room", "R3", "set", "flags", "capacity", "8", "mode", "blind", echomq.VersionField, "3"), raw[2].Fields)

	_, err = s.Append(ctx, echomq.F("room", "R4", echomq.VersionField, "9"), nil)
	require.NoError(t, err)
	var got []string
	var decodeErrs []error
	for ev, err := range tv.Scan(ctx, echomq.All, &echomq.ScanOpts{PageSize: 2}) {
		if err != nil {
			decodeErrs = append(decodeErrs, err)
			continue
		}
		got = append(got, ev.Value.Room)
	}
	require.Equal(t, []string{"R1", "R2", "R3"}, got)
	require.Len(t, decodeErrs, 1)
	var de *echomq.DecodeError
	require.ErrorAs(t, decodeErrs[0], &de)
	require.ErrorIs(t, decodeErrs[0], echomq.ErrDecode)
	require.Equal(t, 9, de.Version)
	require.Equal(t, "version", de.Stage)

	fctx, cancel := context.WithTimeout(ctx, waitTimeout)
	defer cancel()
	n := 0
	for ev, err := range tv.Follow(fctx, &echomq.FollowOpts{From: echomq.Inclusive(echomq.EntryID{})}) {
		if err != nil {
			continue
		}
		require.Equal(t, want[n], ev.Value)
		if n++; n == len(want) {
			break
		}
	}
	require.Equal(t, len(want), n)
}

// TestTypedHandlerDeadLettersDecodeFailure: a consumer with a typed handler
// hands upcast values to the handler and moves an entry that does not
// decode to the dead letters at once (first delivery), with the reason.
func TestTypedHandlerDeadLettersDecodeFailure(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	tv := echomq.NewTyped[roomV3](e.stream, nil, &echomq.TypedOpts{Upcasters: roomUpcasters})
	_, err := e.stream.Append(ctx, echomq.F("room", "R1", "theme", "animals", "seats", "4"), nil)
	require.NoError(t, err)
	bad, err := e.stream.Append(ctx, echomq.F("room", "R2", "set", "x", "capacity", "lots", echomq.VersionField, "3"), nil)
	require.NoError(t, err)
	_, err = tv.Append(ctx, roomV3{Room: "R3", Set: "flags", Capacity: 8, Mode: "blind"}, nil)
	require.NoError(t, err)
	got := make(chan roomV3, 10)
	h := tv.Handler(func(_ context.Context, d echomq.TypedDelivery[roomV3]) error {
		got <- d.Value
		return nil
	})
	r := startConsumer(t, e.c, e.cfg("g", "c1", h))
	require.Equal(t, roomV3{"R1", "animals", 4, "classic"}, echomqtest.Recv(t, got, waitTimeout, "R1's delivery"))
	require.Equal(t, roomV3{"R3", "flags", 8, "blind"}, echomqtest.Recv(t, got, waitTimeout, "R3's delivery"))
	dl := e.stream.DeadLetters()
	waitFor(t, "dead letter", func() bool { n, _ := dl.Len(ctx); return n == 1 })
	st := r.halt(t)
	require.Equal(t, int64(1), st.Dead)
	letters, err := dl.List(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Len(t, letters, 1)
	require.Equal(t, bad, letters[0].Origin)
	require.Equal(t, int64(1), letters[0].Attempts, "dead at the first delivery")
	require.Contains(t, letters[0].Error, "codec")
	require.Contains(t, letters[0].Error, "capacity")
}

// TestRetryAfter: a handler that returns RetryAfter(d) gets the entry again
// after about d, well before MinIdle, with Attempts counting up.
func TestRetryAfter(t *testing.T) {
	t.Parallel()
	e := newGroupEnv(t)
	e.append(t, 1)
	type seen struct {
		at       time.Time
		attempts int64
	}
	got := make(chan seen, 10)
	cfg := e.cfg("g", "c1", func(_ context.Context, d echomq.Delivery) error {
		got <- seen{time.Now(), d.Attempts}
		if d.Attempts < 3 {
			return echomq.RetryAfter(0)
		}
		return nil
	})
	cfg.MinIdle = time.Hour // without the retry request it would not come back within the test
	r := startConsumer(t, e.c, cfg)
	for want := int64(1); want <= 3; want++ {
		select {
		case s := <-got:
			require.Equal(t, want, s.attempts)
		case <-time.After(waitTimeout):
			t.Fatalf("attempt %d never came", want)
		}
	}
	waitFor(t, "acked", func() bool { return e.pending(t, "g") == 0 })
	st := r.halt(t)
	require.Equal(t, int64(2), st.Failed)
	require.ErrorIs(t, echomq.RetryAfter(time.Second), echomq.ErrRetry)
	require.Equal(t, "echomq: retry after 1s", echomq.RetryAfter(time.Second).Error())
}
