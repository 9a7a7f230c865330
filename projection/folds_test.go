package projection

import (
	"encoding/json"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
)

// memEvent builds an event minted at ms after base on a stream.
func memEvent(t testing.TB, stream string, ms int64, seq int, kv ...string) Event {
	id := evtAt(t, base, ms, 1, seq)
	return Event{Event: echomq.Event{ID: id, Entry: id.EntryID(), Fields: echomq.F(kv...)}, Stream: stream}
}

func TestReadyMadeFolds(t *testing.T) {
	t.Parallel()
	evs := []Event{
		memEvent(t, "s", 0, 0, "room", "a", "points", "100", "player", "p1"),
		memEvent(t, "s", 0, 1, "room", "b", "points", "480", "player", "p2"),
		memEvent(t, "s", 61_000, 0, "room", "a", "points", "x", "player", "p1"),
		memEvent(t, "s", 3_600_000, 0, "room", "a", "points", "600", "player", "p2"),
		memEvent(t, "s", 3_600_001, 0, "points", "20"),
	}
	fold := func(p Projection[Table]) Table {
		s, err := FoldSeq(p, Events(evs))
		require.NoError(t, err)
		return s
	}
	tests := []struct {
		spec    string
		columns []string
		rows    [][]string
	}{
		{"count", []string{"count"}, [][]string{{"5"}}},
		{"count,by=room", []string{"room", "count"}, [][]string{{"a", "3"}, {"b", "1"}, {"(missing)", "1"}}},
		{"sum,field=points", []string{"sum"}, [][]string{{"1200"}}},
		{"min,field=points", []string{"min"}, [][]string{{"20"}}},
		{"max,field=points", []string{"max"}, [][]string{{"600"}}},
		{"avg,field=points", []string{"avg"}, [][]string{{"300"}}},
		{"avg,field=nothing", []string{"avg"}, [][]string{{"-"}}},
		{"sum,field=points,by=player", []string{"player", "sum"}, [][]string{{"", "20"}, {"p1", "100"}, {"p2", "1080"}}},
		{"stats,field=points,by=room", []string{"room", "count", "sum", "min", "max", "avg"}, [][]string{
			{"", "1", "20", "20", "20", "20"}, {"a", "2", "700", "100", "600", "350"}, {"b", "1", "480", "480", "480", "480"},
		}},
		{"buckets,every=minute", []string{"start", "count"}, [][]string{
			{"2026-03-01T12:00:00Z", "2"}, {"2026-03-01T12:01:00Z", "1"}, {"2026-03-01T13:00:00Z", "2"},
		}},
		{"buckets,every=hour", []string{"start", "count"}, [][]string{{"2026-03-01T12:00:00Z", "3"}, {"2026-03-01T13:00:00Z", "2"}}},
		{"buckets,every=day", []string{"start", "count"}, [][]string{{"2026-03-01T00:00:00Z", "5"}}},
		{"latest,by=player", []string{"player", "id", "time", "fields"}, [][]string{
			{"p1", evs[2].ID.String(), "2026-03-01T12:01:01.000Z", "room=a points=x player=p1"},
			{"p2", evs[3].ID.String(), "2026-03-01T13:00:00.000Z", "room=a points=600 player=p2"},
		}},
		{"top,field=points,n=2", []string{"rank", "id", "time", "points"}, [][]string{
			{"1", evs[3].ID.String(), "2026-03-01T13:00:00.000Z", "600"}, {"2", evs[1].ID.String(), "2026-03-01T12:00:00.000Z", "480"},
		}},
		{"top,field=points,by=player,n=2", []string{"rank", "player", "points"}, [][]string{{"1", "p2", "1080"}, {"2", "p1", "100"}}},
		{"distinct,field=player", []string{"player"}, [][]string{{"p1"}, {"p2"}}},
	}
	for _, tt := range tests {
		t.Run(tt.spec, func(t *testing.T) {
			t.Parallel()
			sp, err := ParseSpec(tt.spec)
			require.NoError(t, err)
			p, err := sp.Projection()
			require.NoError(t, err)
			got := fold(p)
			require.Equal(t, tt.columns, got.Columns())
			require.Equal(t, tt.rows, got.Rows())
			// The state survives its codec (snapshots) and renders as JSON.
			b, err := p.codec().Encode(got)
			require.NoError(t, err)
			back, err := p.codec().Decode(b)
			require.NoError(t, err)
			require.Equal(t, got, back)
			require.True(t, json.Valid(b))
		})
	}
}

// TestReadyMadeFoldsIgnoreStreamInterleaving: every ready-made fold reaches
// the same state whatever order events of different streams are folded in
// (each stream's own order kept), which is why a live projection, which
// folds streams as their events arrive, ends equal to a rebuild.
func TestReadyMadeFoldsIgnoreStreamInterleaving(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, uint64(time.Now().UnixNano())))
	perStream := make([][]Event, 3)
	var merged []Event
	for ms := range int64(200) {
		for s := range 3 {
			if rng.IntN(2) == 0 {
				continue
			}
			kv := []string{"room", "r" + strconv.Itoa(rng.IntN(4)), "points", strconv.Itoa(rng.IntN(600))}
			if rng.IntN(10) == 0 {
				kv = kv[:2]
			}
			ev := memEvent(t, "s"+strconv.Itoa(s), ms*7919, rng.IntN(2), kv...)
			if rng.IntN(20) == 0 && s > 0 && len(perStream[0]) > 0 { // the same entry id in two streams
				ev.Entry = perStream[0][len(perStream[0])-1].Entry
			}
			if n := len(perStream[s]); n > 0 && ev.Entry.Compare(perStream[s][n-1].Entry) <= 0 {
				continue
			}
			perStream[s] = append(perStream[s], ev)
			merged = append(merged, ev)
		}
	}
	interleave := func() []Event {
		pos := make([]int, 3)
		var out []Event
		for len(out) < len(merged) {
			s := rng.IntN(3)
			if pos[s] < len(perStream[s]) {
				out = append(out, perStream[s][pos[s]])
				pos[s]++
			}
		}
		return out
	}
	for _, spec := range []string{
		"count", "count,by=room", "stats,field=points,by=room", "buckets,every=minute",
		"latest,by=room", "top,field=points,n=5", "top,field=points,by=room,n=3", "distinct,field=room",
	} {
		sp, err := ParseSpec(spec)
		require.NoError(t, err)
		p, err := sp.Projection()
		require.NoError(t, err)
		want, err := FoldSeq(p, Events(merged))
		require.NoError(t, err)
		for range 5 {
			got, err := FoldSeq(p, Events(interleave()))
			require.NoError(t, err)
			require.Equal(t, want, got, spec)
		}
	}
}
