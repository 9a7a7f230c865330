package sim

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/echomqtest"
)

func TestMain(m *testing.M) { echomqtest.MainWithLeakCheck(m) }

// Bad configurations are refused before any request.
func TestRunBadConfig(t *testing.T) {
	t.Parallel()
	for _, c := range []Config{
		{},
		{URL: "http://127.0.0.1:1", Players: -1},
		{URL: "http://127.0.0.1:1", Strategy: "lucky"},
		{URL: "http://127.0.0.1:1"}, // no room and no operator token
	} {
		_, err := Run(context.Background(), &c)
		require.Error(t, err, "%+v", c)
	}
}

func TestReport(t *testing.T) {
	t.Parallel()
	s := &stats{}
	for i := 1; i <= 100; i++ {
		s.record(time.Duration(i) * time.Millisecond)
		s.recordSubmit(time.Duration(i) * time.Microsecond)
	}
	s.accepted.Store(100)
	s.scored.Store(100)
	r := s.report(10, 2*time.Second)
	require.InDelta(t, 50.0, r.ScoredPerSec, 0)
	require.Equal(t, 51*time.Millisecond, r.P50)
	require.Equal(t, 100*time.Millisecond, r.P99)
	require.Equal(t, 100*time.Millisecond, r.Max)
	require.Equal(t, 51*time.Microsecond, r.SubmitP50)
	require.Contains(t, r.String(), "10 players: 100 guesses accepted, 100 scored in 2s")
	require.Zero(t, percentile(nil, 0.5))
	r.Commands, r.CommandsPerGuess = 300, 3
	r.Engines = []EngineCommands{{URL: "redis://a:1", Commands: 100, Share: 1.0 / 3}, {URL: "redis://b:2", Commands: 200, Share: 2.0 / 3}}
	r.Shards = 2
	require.Contains(t, r.String(), "; engine 300 commands, 3.0 per scored guess (redis://a:1 33.3 %, redis://b:2 66.7 %); 2 shards, a room in each")
}

// A player's climbing guesses stay 6 distinct codes of the keyboard.
func TestNextGuess(t *testing.T) {
	t.Parallel()
	kb := []string{"0000", "0100", "0200", "0300", "0400", "0500", "0600", "0700"}
	for _, strategy := range []string{"climb", "random"} {
		p := &player{cfg: &Config{Strategy: strategy}, keyboard: kb}
		p.seed()
		for range 200 {
			g := p.next()
			require.Len(t, g, 6)
			seen := map[string]bool{}
			for _, c := range g {
				require.Contains(t, kb, c)
				require.False(t, seen[c], "%v repeats %s", g, c)
				seen[c] = true
			}
			p.best = g
		}
	}
}
