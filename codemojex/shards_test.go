package codemojex

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/echomqtest"
	"github.com/echomq/echomq/partition"
	"github.com/echomq/echomq/rawcmd"
)

func TestShardQueue(t *testing.T) {
	t.Parallel()
	q, err := ShardQueue("cm", 0, 1)
	require.NoError(t, err)
	require.Equal(t, "cm", q, "one shard is the base queue itself")
	seen := map[string]bool{}
	for i := range 3 {
		q, err := ShardQueue("cm", i, 3)
		require.NoError(t, err)
		want, err := partition.QueueOf("cm", i, 3)
		require.NoError(t, err)
		require.Equal(t, want, q)
		seen[q] = true
	}
	require.Len(t, seen, 3)
	for _, bad := range []struct{ i, n int }{{0, 0}, {0, MaxShards + 1}, {-1, 2}, {2, 2}} {
		_, err := ShardQueue("cm", bad.i, bad.n)
		require.ErrorIs(t, err, echomq.ErrInvalidArgument, "ShardQueue(%d, %d)", bad.i, bad.n)
	}
	_, err = ShardQueue("a b", 0, 2)
	require.Error(t, err)
}

// A room's shard depends on its id alone, and ids spread over the shards.
func TestRoomShardStable(t *testing.T) {
	t.Parallel()
	counts := make([]int, 3)
	for i := range 300 {
		id := fmt.Sprintf("ROM-%d", i)
		require.Equal(t, partition.Route(id, 3), RoomShard(id, 3))
		require.Equal(t, 0, RoomShard(id, 1))
		counts[RoomShard(id, 3)]++
	}
	for _, c := range counts {
		require.Greater(t, c, 60, "%v", counts)
	}
}

// The shard count is recorded on the engine; another count is refused.
func TestNewShardsRecordsCount(t *testing.T) {
	t.Parallel()
	c := connect(t, echomqtest.Shared(t).URL())
	q := echomqtest.Queue(t)
	s, err := NewShards(ctx, c, &Config{Queue: q, Logger: quiet}, 3)
	require.NoError(t, err)
	require.Equal(t, 3, s.Len())
	require.Equal(t, q, s.Base())
	_, err = NewShards(ctx, c, &Config{Queue: q, Logger: quiet}, 3)
	require.NoError(t, err, "the same count again")
	_, err = NewShards(ctx, c, &Config{Queue: q, Logger: quiet}, 2)
	require.ErrorIs(t, err, partition.ErrMismatch)
	var me *partition.MismatchError
	require.ErrorAs(t, err, &me)
	require.Equal(t, []int{3}, me.Have)

	one, err := NewShards(ctx, c, &Config{Queue: echomqtest.Queue(t), Logger: quiet}, 1)
	require.NoError(t, err)
	require.Equal(t, one.Base(), one.Shard(0).Queue(), "one shard is today's queue")

	for _, n := range []int{0, -1, MaxShards + 1} {
		_, err := NewShards(ctx, c, &Config{Queue: echomqtest.Queue(t), Logger: quiet}, n)
		require.ErrorIs(t, err, echomq.ErrInvalidArgument, "%d shards", n)
	}
}

// Rooms live in the shard of their id; the room list fans in every shard.
func TestShardsRooms(t *testing.T) {
	t.Parallel()
	c := connect(t, echomqtest.Shared(t).URL())
	s, err := NewShards(ctx, c, &Config{Queue: echomqtest.Queue(t), Logger: quiet}, 3)
	require.NoError(t, err)
	var ids []string
	used := map[int]bool{}
	for i := range 12 {
		r, err := s.CreateRoom(ctx, RoomSpec{Name: "room " + strconv.Itoa(i)})
		require.NoError(t, err)
		ids = append(ids, r.ID)
		k := RoomShard(r.ID, 3)
		used[k] = true
		got, err := s.Shard(k).Room(ctx, r.ID)
		require.NoError(t, err)
		require.Equal(t, r, got)
		got, err = s.Room(ctx, r.ID)
		require.NoError(t, err)
		require.Equal(t, r, got)
	}
	require.GreaterOrEqual(t, len(used), 2, "12 rooms over 3 shards")
	all, err := s.Rooms(ctx)
	require.NoError(t, err)
	var got []string
	for _, r := range all {
		got = append(got, r.ID)
	}
	require.ElementsMatch(t, ids, got)

	_, err = s.CreateRoom(ctx, RoomSpec{})
	require.ErrorIs(t, err, echomq.ErrInvalidArgument, "a spec without a name")
	_, err = s.Room(ctx, "nope")
	require.Error(t, err)
}

// On a 3-master cluster, a game of 3 shards spreads its engine commands
// over the masters: rooms, games, guesses, charges and scores of each
// shard on the master of its slot, each master's share within ±15 % of a
// third; every accepted guess is scored once and every ledger balances.
func TestShardsSpreadOverCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	t.Parallel()
	cl := echomqtest.StartCluster(t)
	before := masterCalls(t, cl)
	playSharded(t, cl.URL(), 10, nil)
	after := masterCalls(t, cl)
	var total int64
	delta := make([]int64, len(after))
	for i := range after {
		delta[i] = after[i] - before[i]
		total += delta[i]
	}
	for i, d := range delta {
		share := float64(d) / float64(total)
		t.Logf("master %d: %d engine commands, %.1f %% of %d", i, d, 100*share, total)
		require.InDelta(t, 1.0/3, share, 0.15/3, "master %d's share of %v", i, delta)
	}
}

// The sharded game through a manual failover of the master of shard 0's
// slot while guesses are submitted: every guess charged is scored once
// (none left queued after the sweep), none twice, and every shard's ledger
// balances. Not parallel: a failover waits on a loaded machine.
func TestShardsThroughFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster")
	}
	cl := echomqtest.StartReplicatedCluster(t)
	playSharded(t, cl.URL(), 10, func(s *Shards) {
		c := s.Shard(0).Client()
		slot, err := rawcmd.Do(ctx, c, "CLUSTER", "KEYSLOT", s.Shard(0).Stream(StreamGuessScored).Key())
		require.NoError(t, err)
		master, err := cl.MasterOf(int(slot.(int64)))
		require.NoError(t, err)
		replica, err := cl.ReplicaOf(master)
		require.NoError(t, err)
		cl.Failover(t, replica)
		t.Logf("failed over %s to %s", master.Addr(), replica.Addr())
	})
}

// playSharded plays a game of 3 shards on the cluster at url: one room per
// shard, 6 players in each (signed in on the room's shard), rounds guesses
// each, scored by a claim loop per shard after each round; mid, when set,
// runs concurrently with the middle round. It then checks every shard:
// each charged guess scored once, none queued, the ledger balanced.
func playSharded(t *testing.T, url string, rounds int, mid func(*Shards)) {
	t.Helper()
	c := connect(t, url)
	const n, players = 3, 6
	s, err := NewShards(ctx, c, &Config{Queue: "cmshard", Logger: quiet}, n)
	require.NoError(t, err)

	rooms := make([]Room, n)
	for found := 0; found < n; {
		r, err := s.CreateRoom(ctx, RoomSpec{Name: "sharded", Prize: 100})
		require.NoError(t, err)
		if k := RoomShard(r.ID, n); rooms[k].ID == "" {
			rooms[k] = r
			found++
		}
	}
	seats := seatPlayers(t, s, rooms, players, 100)

	for round := range rounds {
		done := make(chan struct{})
		if mid != nil && round == rounds/2 {
			go func() {
				defer close(done)
				mid(s)
			}()
		} else {
			close(done)
		}
		for i, st := range seats {
			code := st.codes(round, i)
			// During a failover a submit may fail; what it charged is
			// then queued or refunded, which the checks below see.
			_, _ = st.e.Submit(ctx, st.p.ID, st.game, code)
		}
		echomqtest.Recv(t, done, 2*time.Minute, "the failover")
		for k := range n {
			scoreAll(t, s.Shard(k))
		}
	}
	for k := range n {
		e := s.Shard(k)
		_, err := e.Requeue(ctx)
		require.NoError(t, err)
		scoreAll(t, e)
		scored := map[string]int{}
		for _, ev := range events(t, e, StreamGuessScored) {
			scored[ev.Fields.Value("guess")]++
		}
		charged, refunded := map[string]int{}, map[string]int{}
		for _, r := range ledgerRows(t, e) {
			switch r.Reason {
			case ReasonGuess:
				charged[r.Ref]++
			case ReasonRefund:
				refunded[r.Ref]++
			}
		}
		for g, c := range charged {
			require.Equal(t, 1, c, "shard %d: guess %s charged once", k, g)
			require.Equal(t, 1, scored[g]+refunded[g], "shard %d: guess %s scored or refunded, once", k, g)
		}
		for g, c := range scored {
			require.Equal(t, 1, c, "shard %d: guess %s scored once", k, g)
		}
		require.NotEmpty(t, charged)
		require.Zero(t, queuedGuesses(t, e))
		requireLedgerBalances(t, e)
	}
}

// seat is a player in a game of a sharded game's room.
type seat struct {
	e    *Engine
	p    Player
	game string
	kb   []string
}

// seatPlayers signs players in on each room's shard, with keys granted,
// and joins them to the room.
func seatPlayers(t *testing.T, s *Shards, rooms []Room, players int, keys int64) []seat {
	t.Helper()
	var seats []seat
	for ri, r := range rooms {
		e := s.ForRoom(r.ID)
		for i := range players {
			p := signIn(t, e, fmt.Sprintf("r%dp%d", ri, i), keys)
			g := join(t, e, p, r)
			seats = append(seats, seat{e, p, g, keyboardOf(t, e, g)})
		}
	}
	return seats
}

// codes returns the codes of the seat's guess of round, the i-th seat:
// consecutive keyboard codes, shifted each round.
func (st seat) codes(round, i int) []string {
	code := make([]string, rules.CodeLength)
	for j := range code {
		code[j] = st.kb[(round*3+i+j)%len(st.kb)]
	}
	return code
}

// masterCalls reads the command counts of every master of cl.
func masterCalls(t *testing.T, cl *echomqtest.Cluster) []int64 {
	t.Helper()
	var out []int64
	for _, node := range cl.Nodes() {
		n, err := infoCalls(node.Addr())
		require.NoError(t, err)
		out = append(out, n)
	}
	return out
}

// infoCalls sums the calls= of the INFO commandstats of the server at addr.
func infoCalls(addr string) (int64, error) {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, "*2\r\n$4\r\nINFO\r\n$12\r\ncommandstats\r\n"); err != nil {
		return 0, err
	}
	br := bufio.NewReader(conn)
	head, err := br.ReadString('\n')
	if err != nil {
		return 0, err
	}
	size, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(head, "$")))
	if err != nil {
		return 0, fmt.Errorf("INFO answered %q", head)
	}
	body := make([]byte, size)
	if _, err := io.ReadFull(br, body); err != nil {
		return 0, err
	}
	var sum int64
	for line := range strings.SplitSeq(string(body), "\r\n") {
		if !strings.HasPrefix(line, "cmdstat_") {
			continue
		}
		_, rest, _ := strings.Cut(line, "calls=")
		v, _, _ := strings.Cut(rest, ",")
		if c, err := strconv.ParseInt(v, 10, 64); err == nil {
			sum += c
		}
	}
	return sum, nil
}

// One worker per shard scores the guesses of its shard's rooms; the
// sweeps of every shard run until their context ends.
func TestShardsWorkersAndSweep(t *testing.T) {
	t.Parallel()
	c := connect(t, echomqtest.Shared(t).URL())
	s, err := NewShards(ctx, c, &Config{Queue: echomqtest.Queue(t), Logger: quiet}, 3)
	require.NoError(t, err)
	var rooms []Room
	for range 6 {
		r, err := s.CreateRoom(ctx, RoomSpec{Name: "worked"})
		require.NoError(t, err)
		rooms = append(rooms, r)
	}
	seats := seatPlayers(t, s, rooms, 1, 1)
	ws, err := s.Workers(nil)
	require.NoError(t, err)
	require.Len(t, ws, 3)
	for _, w := range ws {
		require.NoError(t, w.Start(ctx))
		t.Cleanup(func() { require.NoError(t, w.Stop(ctx)) })
	}
	var guesses []string
	for i, st := range seats {
		rc, err := st.e.Submit(ctx, st.p.ID, st.game, st.codes(0, i))
		require.NoError(t, err)
		guesses = append(guesses, rc.Guess)
	}
	echomqtest.WaitFor(t, time.Minute, "every guess scored by its shard's worker", func() bool {
		for i, st := range seats {
			g, err := st.e.GuessOf(ctx, st.p.ID, guesses[i])
			if err != nil || g.Status != GuessScored {
				return false
			}
		}
		return true
	})

	require.ErrorIs(t, s.RunSweep(ctx, 0), echomq.ErrInvalidArgument)
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- s.RunSweep(sctx, 10*time.Millisecond) }()
	cancel()
	require.NoError(t, echomqtest.Recv(t, done, 10*time.Second, "the sweeps' end"))
}
