package sim

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"
)

// player is one simulated player.
type player struct {
	c     *client
	cfg   *Config
	st    *stats
	name  string
	seat  int // the player's number in the run
	token string
	rng   *rand.Rand
	rooms []string // one per shard of the server
	room  string   // the room the player plays

	game     string
	keyboard []string
	best     []string
	bestPts  int
}

// seed gives the player a random source of its own.
func (p *player) seed() { p.rng = rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())) }

func (p *player) setUp(ctx context.Context) error {
	p.seed()
	var in struct {
		Token  string `json:"token"`
		Player struct{ ID string }
		Shard  int `json:"shard"`
	}
	if err := p.c.do(ctx, "POST", "/api/auth/dev", "", map[string]string{"name": p.name}, &in); err != nil {
		return err
	}
	if in.Shard < 0 || in.Shard >= len(p.rooms) {
		return fmt.Errorf("the server signed %s in on shard %d of %d", p.name, in.Shard, len(p.rooms))
	}
	// The players spread over the rooms of every shard, whatever their
	// home (the shard of their wallet): most guesses of a sharded game are
	// paid in another shard than the one scoring them.
	p.token, p.room = in.Token, p.rooms[p.seat%len(p.rooms)]
	if p.cfg.OperatorToken != "" {
		err := p.c.do(ctx, "POST", "/api/op/grant", p.cfg.OperatorToken,
			map[string]any{"player": in.Player.ID, "currency": "keys", "amount": p.cfg.Guesses + 10}, nil)
		if err != nil {
			return err
		}
	}
	return p.join(ctx)
}

func (p *player) join(ctx context.Context) error {
	var out struct {
		Game string `json:"game"`
		View struct {
			Keyboard []string `json:"keyboard"`
		} `json:"view"`
	}
	if err := p.c.do(ctx, "POST", "/api/rooms/"+p.room+"/join", p.token, nil, &out); err != nil {
		return err
	}
	p.game, p.keyboard, p.best, p.bestPts = out.Game, out.View.Keyboard, nil, -1
	return nil
}

func (p *player) play(ctx context.Context) {
	for n := 0; n < p.cfg.Guesses && ctx.Err() == nil; {
		codes := p.next()
		t0 := time.Now()
		var rc struct {
			Receipt struct{ Guess string } `json:"receipt"`
			Guess   struct {
				Status string `json:"status"`
				Points int    `json:"points"`
			} `json:"guess"`
		}
		// One request submits and waits for the score; a guess still queued
		// when it answers is waited on with GET /api/guesses/{id}.
		deadline := time.Now().Add(p.cfg.Wait)
		path := "/api/games/" + p.game + "/guess?wait=" + min(p.cfg.Wait, maxWait).Round(time.Millisecond).String()
		err := p.c.do(ctx, "POST", path, p.token, map[string]any{"codes": codes}, &rc)
		var ae *apiError
		switch {
		case err == nil:
		case errors.As(err, &ae) && ae.Status == http.StatusConflict:
			p.st.closed.Add(1)
			if p.join(ctx) != nil {
				p.st.errors.Add(1)
				time.Sleep(100 * time.Millisecond)
			}
			continue
		case errors.As(err, &ae) && ae.Status == http.StatusPaymentRequired:
			p.st.insufficient.Add(1)
			return
		case unavailable(ctx, err):
			// The server or its engine is out of reach: nothing was charged
			// (or the guess will still be scored: the server queues it
			// again). Try again shortly; it does not count as a guess.
			p.st.unavailable.Add(1)
			pause(ctx, retryPause)
			continue
		default:
			if ctx.Err() == nil {
				p.st.errors.Add(1)
			}
			n++
			continue
		}
		n++
		p.st.accepted.Add(1)
		p.st.recordSubmit(time.Since(t0))
		var g struct {
			Guess struct {
				Status string `json:"status"`
				Points int    `json:"points"`
			} `json:"guess"`
		}
		g.Guess = rc.Guess
		for err == nil && (g.Guess.Status == "" || g.Guess.Status == "queued") && time.Now().Before(deadline) {
			err = p.c.do(ctx, "GET", "/api/guesses/"+rc.Receipt.Guess+"?wait="+min(time.Until(deadline), maxWait).Round(time.Millisecond).String(), p.token, nil, &g)
			if unavailable(ctx, err) && time.Now().Before(deadline) {
				p.st.unavailable.Add(1)
				pause(ctx, retryPause)
				err = nil // wait on: the guess is charged and will be scored
			}
		}
		if err != nil {
			if ctx.Err() == nil {
				p.st.errors.Add(1)
			}
			continue
		}
		if g.Guess.Status == "queued" {
			p.st.errors.Add(1) // not scored in time
			continue
		}
		if g.Guess.Status != "scored" {
			continue // void: its game closed first
		}
		p.st.scored.Add(1)
		p.st.record(time.Since(t0))
		if g.Guess.Points == 600 {
			p.st.cracks.Add(1)
		}
		if g.Guess.Points > p.bestPts {
			p.best, p.bestPts = codes, g.Guess.Points
		}
	}
}

// next composes the next guess: a random one, or a small change of the
// best so far.
func (p *player) next() []string {
	if p.cfg.Strategy == "random" || p.best == nil {
		perm := p.rng.Perm(len(p.keyboard))[:6]
		out := make([]string, 6)
		for i, j := range perm {
			out[i] = p.keyboard[j]
		}
		return out
	}
	out := append([]string(nil), p.best...)
	i := p.rng.IntN(6)
	if p.rng.IntN(2) == 0 {
		j := (i + 1 + p.rng.IntN(5)) % 6
		out[i], out[j] = out[j], out[i]
		return out
	}
	for {
		c := p.keyboard[p.rng.IntN(len(p.keyboard))]
		used := false
		for _, x := range out {
			used = used || x == c
		}
		if !used {
			out[i] = c
			return out
		}
	}
}

// maxWait is the longest one long-poll asks to wait (the API's cap is
// 30s); a longer Config.Wait polls again.
const maxWait = 25 * time.Second

// retryPause is how long a player waits before trying a request again
// after the server or its engine was out of reach.
const retryPause = 250 * time.Millisecond

// unavailable reports whether err says the server or its engine could not
// be reached for now (503, or the connection failed) while ctx still runs.
func unavailable(ctx context.Context, err error) bool {
	if err == nil || ctx.Err() != nil {
		return false
	}
	if ae, ok := errors.AsType[*apiError](err); ok {
		return ae.Status == http.StatusServiceUnavailable || ae.Status == http.StatusBadGateway || ae.Status == http.StatusGatewayTimeout
	}
	return true // the request itself failed: a connection refused or reset
}

// pause waits d or until ctx ends.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
