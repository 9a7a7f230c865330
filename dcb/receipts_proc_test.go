package dcb_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
	"github.com/echomq/echomq/echomqtest"
)

const (
	receiptsEnv = "EMQ_DCB_RECEIPTS"
	// receiptsWorkers are the goroutines of one writer process, each
	// running receiptsOps operations: with the kinds' mix (receiptsKinds)
	// 128 events per goroutine, 4,096 over 8 processes (2,048 in -short).
	receiptsWorkers = 4
	receiptsOps     = 48
	receiptsSlots   = 8 // the tags slot=0..7 the conditional appends race on
)

// receiptsStreams are the streams every writer appends to.
var receiptsStreams = []string{"s0", "s1", "s2"}

// The operations of a writer, in turn: a plain append, a tagged append, a
// plain batch of 8, a tagged batch of 4, a conditional append of two
// tagged events to two streams (raced: its condition is the slot's newest
// position the worker read, which another writer may have passed since),
// and a conditional append that must conflict (its condition is "nothing
// of mine since position 0", and the writer's tagged events exist).
const receiptsKinds = "ptbBdx"

// receiptsOffsets are the writers' clocks against the engine's, in turn:
// both plain and tagged appends mint with them (a tagged id the engine
// refuses, below another writer's, falls back to one the engine chooses).
var receiptsOffsets = []time.Duration{0, 6 * time.Millisecond, -50 * time.Millisecond, 0}

// TestReceiptsHelperProcess is not a test: it is one writer of
// TestReceiptsProcesses, configured by EMQ_DCB_* variables. Its workers
// append from EMQ_DCB_START (Unix ms), minting with a clock
// EMQ_DCB_OFFSET_MS off the system's, and it writes to EMQ_DCB_FILE one
// line per acknowledged event, "ack <kind> <stream> <receipt> <entry>
// <position> <op>" (entry "-" and position 0 when the call does not return
// them), and one per event of a refused conditional append, "conflict
// <kind> <op> <stream> <receipt> <position> <after> <tag>" naming the
// conflicting event the error named, the condition's position and the
// query's tag; op is the event's field "op", unique per event written.
func TestReceiptsHelperProcess(t *testing.T) {
	t.Parallel()
	if os.Getenv(receiptsEnv) != "1" {
		t.Skip("runs only as a writer child process")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	offMs, err := strconv.Atoi(os.Getenv("EMQ_DCB_OFFSET_MS"))
	require.NoError(t, err)
	off := time.Duration(offMs) * time.Millisecond
	c, err := echomq.Connect(ctx, &echomq.Config{
		URL: os.Getenv("EMQ_DCB_URL"), Notice: io.Discard,
		Clock: func() time.Time { return time.Now().Add(off) },
	})
	require.NoError(t, err)
	defer c.Close()
	q := os.Getenv("EMQ_DCB_QUEUE")
	s, err := dcb.New(c, q)
	require.NoError(t, err)
	me := os.Getenv("EMQ_DCB_ME")
	start, err := strconv.ParseInt(os.Getenv("EMQ_DCB_START"), 10, 64)
	require.NoError(t, err)

	var mu sync.Mutex
	var out strings.Builder
	ack := func(kind, stream string, id echomq.ID, entry string, pos uint64, op string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(&out, "ack %c %s %s %s %d %s\n", kind[0], stream, id, entry, pos, op)
	}
	refused := func(kind string, evs []dcb.Append, ce *dcb.ConflictError, tag string) {
		mu.Lock()
		defer mu.Unlock()
		for _, e := range evs {
			fmt.Fprintf(&out, "conflict %c %s %s %s %d %d %s\n", kind[0], e.Fields.Value("op"), ce.Stream, ce.ID, ce.Position, ce.After, tag)
		}
	}
	time.Sleep(time.Until(time.UnixMilli(start))) // sleep: every writer starts at the same instant
	var wg sync.WaitGroup
	errs := make(chan error, receiptsWorkers)
	for g := range receiptsWorkers {
		wg.Go(func() {
			after := make([]uint64, receiptsSlots) // per slot, the newest position read
			for n := range receiptsOps {
				op := fmt.Sprintf("%s.%d.%d", me, g, n)
				kind := receiptsKinds[n%len(receiptsKinds) : n%len(receiptsKinds)+1]
				st := c.Stream(q, receiptsStreams[(g+n)%len(receiptsStreams)])
				slot := (g + n) % receiptsSlots
				tags := dcb.Tags("proc", me, "slot", strconv.Itoa(slot))
				if err := receiptsOp(ctx, s, st, kind, op, tags, slot, after, ack, refused); err != nil {
					errs <- fmt.Errorf("op %s (%s): %w", op, kind, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.NoError(t, os.WriteFile(os.Getenv("EMQ_DCB_FILE"), []byte(out.String()), 0o644))
}

// receiptsOp runs one operation of kind (see receiptsKinds) and reports
// what was acknowledged or refused.
func receiptsOp(ctx context.Context, s *dcb.Store, st *echomq.Stream, kind, op string, tags []string, slot int, after []uint64,
	ack func(kind, stream string, id echomq.ID, entry string, pos uint64, op string),
	refused func(kind string, evs []dcb.Append, ce *dcb.ConflictError, tag string),
) error {
	batch := func(n int) []echomq.Fields {
		recs := make([]echomq.Fields, n)
		for i := range recs {
			recs[i] = echomq.F("op", op+"."+strconv.Itoa(i))
		}
		return recs
	}
	switch kind {
	case "p", "t":
		var opts *echomq.AppendOpts
		if kind == "t" {
			opts = &echomq.AppendOpts{Tags: tags}
		}
		id, err := st.Append(ctx, echomq.F("op", op), opts)
		if err != nil {
			return err
		}
		ack(kind, st.Name(), id, "-", 0, op)
	case "b", "B":
		recs, opts := batch(8), (*echomq.AppendOpts)(nil)
		if kind == "B" {
			recs, opts = batch(4), &echomq.AppendOpts{Tags: tags}
		}
		ids, err := st.AppendBatch(ctx, recs, opts)
		if err != nil {
			return err
		}
		for i, id := range ids {
			ack(kind, st.Name(), id, "-", 0, recs[i].Value("op"))
		}
	case "d", "x":
		// The raced append: two events to two streams, on the condition
		// that nothing of the slot came after what this worker read.
		qs := dcb.Query{{Types: receiptsStreams, Tags: []string{"slot=" + strconv.Itoa(slot)}}}
		var cond *dcb.Condition
		tag := qs[0].Tags[0]
		if kind == "d" {
			_, pos, err := s.ReadAll(ctx, qs, after[slot])
			if err != nil {
				return err
			}
			after[slot] = pos
			cond = &dcb.Condition{Query: qs, After: pos}
		} else {
			// The stale one: the writer's own tagged events lie after 0.
			tag = tags[0]
			cond = &dcb.Condition{Query: dcb.Query{{Types: receiptsStreams, Tags: []string{tag}}}}
		}
		other := receiptsStreams[(slices.Index(receiptsStreams, st.Name())+1)%len(receiptsStreams)]
		evs := []dcb.Append{
			{Stream: st.Name(), Tags: tags, Fields: echomq.F("op", op+".0")},
			{Stream: other, Tags: tags, Fields: echomq.F("op", op+".1")},
		}
		got, err := s.Append(ctx, evs, cond)
		var ce *dcb.ConflictError
		switch {
		case err == nil && kind == "x":
			return errors.New("a stale condition did not conflict")
		case err == nil:
			if len(got) != len(evs) {
				return fmt.Errorf("%d events appended, %d acknowledged", len(evs), len(got))
			}
			for i, a := range got {
				ack(kind, a.Stream, a.ID, a.Entry.String(), a.Position, evs[i].Fields.Value("op"))
			}
		case errors.As(err, &ce) && errors.Is(err, echomq.ErrConflict):
			refused(kind, evs, ce, tag)
		default:
			return err
		}
	}
	return nil
}

// receiptsAck is one acknowledged event as its writer reported it.
type receiptsAck struct {
	kind, stream, op string
	id               echomq.ID
	entry            string // "-" when the call returned only the receipt
	pos              uint64
}

// TestReceiptsProcesses: 8 writer processes (4 in -short), each with 4
// goroutines and its own clock (on time, 6 ms ahead, 50 ms behind), append
// at once to the same three streams of a queue plain
// events, tagged events, plain and tagged batches and conditional
// appends of two streams, some of which conflict. Read back from every
// stream: no receipt is stored twice across the streams, every
// acknowledged receipt is stored exactly once, in its stream, as the
// entry its receipt maps to (A1), carrying the acknowledged op, entry id
// and position; nothing else is stored, and no event of a refused append;
// entry ids increase strictly per stream; tagged events (and only they)
// have positions, unique in the queue and increasing in entry-id order per
// stream.
func TestReceiptsProcesses(t *testing.T) {
	t.Parallel()
	procs := 8
	if testing.Short() {
		procs = 4
	}
	url := echomqtest.Shared(t).URL()
	q := echomqtest.Queue(t)
	dir := t.TempDir()
	start := time.Now().Add(2 * time.Second).UnixMilli() // every child is up by then
	type writer struct {
		wait func() error
		out  *syncBuffer
		file string
	}
	writers := make([]writer, procs)
	began := time.Now()
	for i := range writers {
		file := filepath.Join(dir, strconv.Itoa(i))
		cmd, out := child(t, "TestReceiptsHelperProcess", receiptsEnv+"=1", "EMQ_DCB_URL="+url, "EMQ_DCB_QUEUE="+q,
			"EMQ_DCB_ME="+strconv.Itoa(i), "EMQ_DCB_START="+strconv.FormatInt(start, 10), "EMQ_DCB_FILE="+file,
			"EMQ_DCB_OFFSET_MS="+strconv.FormatInt(receiptsOffsets[i%len(receiptsOffsets)].Milliseconds(), 10))
		writers[i] = writer{cmd.Wait, out, file}
	}
	var acks []receiptsAck
	type conflict struct {
		kind, stream, tag string
		id                echomq.ID
		pos, after        uint64
	}
	refused := map[string]conflict{} // op → what the error named
	kinds := map[string]int{}
	for i, w := range writers {
		require.NoError(t, w.wait(), "writer %d: %s", i, w.out.String())
		f, err := os.Open(w.file)
		require.NoError(t, err)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fs := strings.Fields(sc.Text())
			switch fs[0] {
			case "ack":
				require.Len(t, fs, 7, sc.Text())
				id, err := echomq.ParseEventID(fs[3])
				require.NoError(t, err, sc.Text())
				pos, err := strconv.ParseUint(fs[5], 10, 64)
				require.NoError(t, err, sc.Text())
				acks = append(acks, receiptsAck{kind: fs[1], stream: fs[2], id: id, entry: fs[4], pos: pos, op: fs[6]})
				kinds[fs[1]]++
			case "conflict":
				require.Len(t, fs, 8, sc.Text())
				id, err := echomq.ParseEventID(fs[4])
				require.NoError(t, err, sc.Text())
				pos, err1 := strconv.ParseUint(fs[5], 10, 64)
				after, err2 := strconv.ParseUint(fs[6], 10, 64)
				require.NoError(t, errors.Join(err1, err2), sc.Text())
				refused[fs[2]] = conflict{kind: fs[1], stream: fs[3], id: id, pos: pos, after: after, tag: fs[7]}
				kinds["refused "+fs[1]]++
			default:
				t.Fatalf("writer %d: unknown line %q", i, sc.Text())
			}
		}
		require.NoError(t, sc.Err())
		require.NoError(t, f.Close())
	}
	wrote := time.Since(began)

	// Read back every stream.
	type stored struct {
		stream string
		ev     echomq.Event
	}
	c := connect(t, url)
	byID := map[echomq.ID]stored{}
	byOp := map[string]echomq.ID{}
	positions := map[uint64]echomq.ID{}
	for _, name := range receiptsStreams {
		var prev echomq.EntryID
		var prevPos uint64
		n := 0
		for ev, err := range c.Stream(q, name).Scan(ctx, echomq.All, nil) {
			require.NoError(t, err)
			require.Equal(t, ev.ID.EntryID(), ev.Entry, "%s: the receipt %s maps to the entry id (A1)", name, ev.ID)
			if n > 0 {
				require.Equal(t, 1, ev.Entry.Compare(prev), "%s: entry %s after %s", name, ev.Entry, prev)
			}
			prev = ev.Entry
			n++
			if s, ok := byID[ev.ID]; ok {
				t.Fatalf("receipt %s stored twice: in %s and %s", ev.ID, s.stream, name)
			}
			byID[ev.ID] = stored{name, ev}
			op, ok := ev.Fields.Get("op")
			require.True(t, ok, "%s: entry %s has no op", name, ev.Entry)
			_, twice := byOp[op]
			require.False(t, twice, "op %s stored twice", op)
			byOp[op] = ev.ID
			if len(ev.Tags) == 0 {
				require.Zero(t, ev.Position, "%s: untagged entry %s has a position", name, ev.Entry)
				continue
			}
			require.Greater(t, ev.Position, prevPos, "%s: tagged entry %s's position after the previous one's", name, ev.Entry)
			prevPos = ev.Position
			if other, ok := positions[ev.Position]; ok {
				t.Fatalf("position %d held by %s and %s", ev.Position, other, ev.ID)
			}
			positions[ev.Position] = ev.ID
		}
	}

	// Every acknowledged event is stored once, as acknowledged; nothing else
	// is, and nothing of a refused append.
	for _, a := range acks {
		s, ok := byID[a.id]
		require.True(t, ok, "acknowledged receipt %s (%s, op %s) is not stored", a.id, a.stream, a.op)
		require.Equal(t, a.stream, s.stream, "receipt %s", a.id)
		require.Equal(t, a.op, s.ev.Fields.Value("op"), "receipt %s", a.id)
		if a.entry != "-" {
			require.Equal(t, a.entry, s.ev.Entry.String(), "receipt %s", a.id)
		}
		if a.pos != 0 {
			require.Equal(t, a.pos, s.ev.Position, "receipt %s", a.id)
		}
		tagged := strings.ContainsAny(a.kind, "tBd")
		require.Equal(t, tagged, len(s.ev.Tags) > 0, "receipt %s of a %q append: tags %v", a.id, a.kind, s.ev.Tags)
	}
	require.Len(t, byID, len(acks), "the streams hold the acknowledged events and nothing else")
	// A refused append names the first stored event that matches its query
	// after its condition's position.
	tagged := map[string][]uint64{} // tag → positions
	for _, s := range byID {
		for _, tag := range s.ev.Tags {
			tagged[tag] = append(tagged[tag], s.ev.Position)
		}
	}
	for op, cf := range refused {
		_, ok := byOp[op]
		require.False(t, ok, "op %s of a refused %q append is stored", op, cf.kind)
		s, ok := byID[cf.id]
		require.True(t, ok, "op %s: the conflicting event %s is not stored", op, cf.id)
		require.Equal(t, cf.stream, s.stream, "op %s: the conflicting event %s", op, cf.id)
		require.Equal(t, cf.pos, s.ev.Position, "op %s: the conflicting event %s", op, cf.id)
		require.Greater(t, cf.pos, cf.after, "op %s: the conflicting event lies after the condition", op)
		require.Contains(t, s.ev.Tags, cf.tag, "op %s: the conflicting event %s matches the query", op, cf.id)
		for _, p := range tagged[cf.tag] {
			require.False(t, p > cf.after && p < cf.pos, "op %s: position %d of %s, before the named %d, conflicts too", op, p, cf.tag, cf.pos)
		}
	}
	require.Equal(t, procs*receiptsWorkers*receiptsOps/len(receiptsKinds)*2, kinds["refused x"], "every stale condition conflicts (two events each)")
	t.Logf("%d processes: %d events acknowledged (%d tagged positions) in %v, %d events of raced conditional appends refused; by kind %v",
		procs, len(acks), len(positions), wrote.Round(time.Millisecond), kinds["refused d"], kinds)
	requireIndexed(t, c, q)
}
