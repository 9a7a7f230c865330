package dcb_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
)

func TestAppendBadInput(t *testing.T) {
	t.Parallel()
	s, c := setup(t)
	g := dcb.Tags("game", "G1")
	ok := ev("a", g, "k", "v")
	q := dcb.Query{{Tags: g}}
	many := make([]dcb.Append, dcb.MaxEvents+1)
	for i := range many {
		many[i] = ok
	}
	for _, tc := range []struct {
		name string
		evs  []dcb.Append
		cond *dcb.Condition
		want error
	}{
		{"no events", nil, nil, echomq.ErrInvalidArgument},
		{"too many events", many, nil, echomq.ErrInvalidArgument},
		{"bad stream", []dcb.Append{ev("a:b", g)}, nil, echomq.ErrInvalidName},
		{"no tags", []dcb.Append{ev("a", nil)}, nil, echomq.ErrInvalidArgument},
		{"tag without =", []dcb.Append{ev("a", []string{"game"})}, nil, echomq.ErrInvalidArgument},
		{"tag empty key", []dcb.Append{ev("a", []string{"=x"})}, nil, echomq.ErrInvalidArgument},
		{"tag empty value", []dcb.Append{ev("a", []string{"game="})}, nil, echomq.ErrInvalidArgument},
		{"tag bad key", []dcb.Append{ev("a", []string{"ga:me=x"})}, nil, echomq.ErrInvalidArgument},
		{"tag comma", []dcb.Append{ev("a", []string{"game=a,b"})}, nil, echomq.ErrInvalidArgument},
		{"tag space", []dcb.Append{ev("a", []string{"game=a b"})}, nil, echomq.ErrInvalidArgument},
		{"tag too long", []dcb.Append{ev("a", []string{"game=" + strings.Repeat("x", 129)})}, nil, echomq.ErrInvalidArgument},
		{"too many tags", []dcb.Append{ev("a", dcb.Tags("a", "1", "b", "2", "c", "3", "d", "4", "e", "5", "f", "6", "g", "7", "h", "8", "i", "9", "j", "10", "k", "11", "l", "12", "m", "13", "n", "14", "o", "15", "p", "16", "q", "17"))}, nil, echomq.ErrInvalidArgument},
		{"reserved id", []dcb.Append{ev("a", g, "id", "x")}, nil, echomq.ErrReservedField},
		{"reserved @", []dcb.Append{ev("a", g, "@pos", "1")}, nil, echomq.ErrReservedField},
		{"odd fields", []dcb.Append{{Stream: "a", Tags: g, Fields: echomq.F("k")}}, nil, echomq.ErrInvalidFields},
		{"empty query", []dcb.Append{ok}, &dcb.Condition{}, echomq.ErrInvalidArgument},
		{"item without tags", []dcb.Append{ok}, &dcb.Condition{Query: dcb.Query{{Types: []string{"a"}}}}, echomq.ErrInvalidArgument},
		{"item bad type", []dcb.Append{ok}, &dcb.Condition{Query: dcb.Query{{Types: []string{""}, Tags: g}}}, echomq.ErrInvalidName},
		{"item bad tag", []dcb.Append{ok}, &dcb.Condition{Query: dcb.Query{{Tags: []string{"x"}}}}, echomq.ErrInvalidArgument},
		{"too many items", []dcb.Append{ok}, &dcb.Condition{Query: make(dcb.Query, dcb.MaxItems+1)}, echomq.ErrInvalidArgument},
		{"position ahead", []dcb.Append{ok}, &dcb.Condition{Query: q, After: 1 << 40}, dcb.ErrPosition},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Append(ctx, tc.evs, tc.cond)
			require.ErrorIs(t, err, tc.want)
		})
	}
	// Nothing was written by any of them.
	h, err := s.Head(ctx)
	require.NoError(t, err)
	require.Zero(t, h)
	evs, err := c.Stream(s.Queue(), "a").Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Empty(t, evs)
}

func TestReadBadInput(t *testing.T) {
	t.Parallel()
	s, _ := setup(t)
	g := dcb.Tags("game", "G1")
	for _, tc := range []struct {
		name  string
		q     dcb.Query
		after uint64
		opts  *dcb.ReadOpts
		want  error
	}{
		{"empty query", nil, 0, nil, echomq.ErrInvalidArgument},
		{"item without tags", dcb.Query{{}}, 0, nil, echomq.ErrInvalidArgument},
		{"too many types", dcb.Query{{Types: make([]string, dcb.MaxTypes+1), Tags: g}}, 0, nil, echomq.ErrInvalidArgument},
		{"negative limit", dcb.Query{{Tags: g}}, 0, &dcb.ReadOpts{Limit: -1}, echomq.ErrInvalidArgument},
		{"limit too big", dcb.Query{{Tags: g}}, 0, &dcb.ReadOpts{Limit: dcb.MaxLimit + 1}, echomq.ErrInvalidArgument},
		{"position ahead", dcb.Query{{Tags: g}}, 5, nil, dcb.ErrPosition},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Read(ctx, tc.q, tc.after, tc.opts)
			require.ErrorIs(t, err, tc.want)
		})
	}
	for _, o := range []*dcb.FollowOpts{{Poll: time.Millisecond}, {Limit: -1}} {
		for _, err := range s.Follow(ctx, dcb.Query{{Tags: g}}, 0, o) {
			require.ErrorIs(t, err, echomq.ErrInvalidArgument)
		}
	}
	_, err := dcb.Decide(ctx, s, dcb.Decision[int]{Query: dcb.Query{{Tags: g}}}, nil)
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
	_, err = dcb.New(nil, "emq")
	require.ErrorIs(t, err, echomq.ErrInvalidName)
}

func TestStreamAppendBadTags(t *testing.T) {
	t.Parallel()
	s, c := setup(t)
	st := c.Stream(s.Queue(), "a")
	for _, tags := range [][]string{{"x"}, {"k="}, {"k=a,b"}} {
		_, err := st.Append(ctx, echomq.F("k", "v"), &echomq.AppendOpts{Tags: tags})
		require.ErrorIs(t, err, echomq.ErrInvalidArgument)
	}
	_, err := st.Append(ctx, echomq.F("k", "v"), &echomq.AppendOpts{Tags: []string{"k=v"}, Durable: echomq.Durability{Replicas: 1}})
	require.ErrorIs(t, err, echomq.ErrInvalidArgument)
	_, err = st.Append(ctx, echomq.F("@tags", "x"), nil)
	require.ErrorIs(t, err, echomq.ErrReservedField)
	evs, err := st.Read(ctx, echomq.All, nil)
	require.NoError(t, err)
	require.Empty(t, evs)
}
