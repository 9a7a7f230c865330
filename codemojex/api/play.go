package api

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/codemojex/views"
)

// SignInRequest is the body of POST /api/auth/dev.
type SignInRequest struct {
	Name string `json:"name"`
}

// SignInResponse answers a sign-in: the bearer token and the player.
type SignInResponse struct {
	Token  string           `json:"token"`
	Player codemojex.Player `json:"player"`
	// Shard is the player's home shard (0 on a game of one shard): they
	// play the rooms of that shard.
	Shard int `json:"shard"`
}

func (s *Server) devSignIn(w http.ResponseWriter, r *http.Request) {
	if !s.cfg.DevSignIn {
		s.failWith(w, http.StatusNotFound, CodeNotFound, "dev sign-in is disabled")
		return
	}
	var req SignInRequest
	if err := decode(w, r, &req); err != nil {
		s.failWith(w, http.StatusBadRequest, CodeBadRequest, err.Error())
		return
	}
	p, token, err := s.e.SignIn(r.Context(), codemojex.Identity{Provider: "dev", Subject: req.Name})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	home, err := s.e.Home(r.Context(), p.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, SignInResponse{Token: token, Player: p, Shard: home})
}

func (s *Server) signOut(w http.ResponseWriter, r *http.Request) {
	if err := s.e.SignOut(r.Context(), bearer(r)); err != nil {
		s.fail(w, r, err)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) me(w http.ResponseWriter, r *http.Request, p codemojex.Player) {
	wal, err := s.e.Wallet(r.Context(), p.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	var tally views.Tally
	if err := read(r.Context(), s.views.Players, func(ps *views.Players) { tally = ps.Of(p.ID).Tally }); err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"player": p, "balance": wal, "tally": tally})
}

func (s *Server) balance(w http.ResponseWriter, r *http.Request, p codemojex.Player) {
	wal, err := s.e.Wallet(r.Context(), p.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"balance": wal})
}

func (s *Server) ledger(w http.ResponseWriter, r *http.Request, p codemojex.Player) {
	limit, err := intParam(r, "limit", 50, 1, 1000)
	if err != nil {
		s.failWith(w, http.StatusBadRequest, CodeBadRequest, err.Error())
		return
	}
	rows, err := s.e.Ledger(r.Context(), p.ID, limit)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if rows == nil {
		rows = []codemojex.LedgerRow{}
	}
	writeJSON(w, http.StatusOK, map[string]any{"ledger": rows})
}

// ConvertRequest is the body of POST /api/convert.
type ConvertRequest struct {
	Diamonds int64 `json:"diamonds"`
}

func (s *Server) convert(w http.ResponseWriter, r *http.Request, p codemojex.Player) {
	var req ConvertRequest
	if err := decode(w, r, &req); err != nil {
		s.failWith(w, http.StatusBadRequest, CodeBadRequest, err.Error())
		return
	}
	wal, err := s.e.Convert(r.Context(), p.ID, req.Diamonds)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"balance": wal})
}

func (s *Server) join(w http.ResponseWriter, r *http.Request, p codemojex.Player) {
	j, err := s.e.Join(r.Context(), p.ID, r.PathValue("id"))
	if err != nil {
		s.fail(w, r, err)
		return
	}
	v, err := s.gameView(r.Context(), j.Game, p.ID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"game": j.Game, "started": j.Started, "already": j.Already, "view": v})
}

// GuessRequest is the body of POST /api/games/{id}/guess: six distinct
// codes of the game's keyboard, or six of its emoji.
type GuessRequest struct {
	Codes  []string `json:"codes"`
	Emojis []string `json:"emojis"`
}

func (s *Server) guess(w http.ResponseWriter, r *http.Request, p codemojex.Player) {
	wait, err := durationParam(r, "wait", 0, s.cfg.MaxWait)
	if err != nil {
		s.failWith(w, http.StatusBadRequest, CodeBadRequest, err.Error())
		return
	}
	var req GuessRequest
	if err := decode(w, r, &req); err != nil {
		s.failWith(w, http.StatusBadRequest, CodeBadRequest, err.Error())
		return
	}
	game := r.PathValue("id")
	var woke <-chan struct{}
	stop := func() {}
	if wait > 0 {
		// Registered before the guess exists: its id is known only once
		// submitted, and a score may land before the answer is written.
		woke, stop = s.hub.Wait(p.ID, game)
	}
	defer func() { stop() }()
	codes := req.Codes
	switch {
	case len(req.Codes) > 0 && len(req.Emojis) > 0:
		s.failWith(w, http.StatusBadRequest, CodeBadRequest, "send codes or emojis, not both")
		return
	case len(req.Emojis) > 0:
		g, err := s.e.Game(r.Context(), game)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		set, err := s.e.Set(g.Set)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		codes = make([]string, len(req.Emojis))
		for i, glyph := range req.Emojis {
			c, ok := set.CellOfGlyph(glyph)
			if !ok {
				s.refuseGuess(w, fmt.Sprintf("%s in place %d is not an emoji of this game", glyph, i+1), GuessProblem{Position: i + 1, Emoji: glyph})
				return
			}
			codes[i] = string(c.Code)
		}
		// An emoji of the set this game's keyboard leaves out is named as
		// the player sent it, not by a code they never saw.
		if msg, p, bad := offKeyboard(g.Keyboard, codes, req.Emojis); bad {
			s.refuseGuess(w, msg, p)
			return
		}
	}
	rc, err := s.e.Submit(r.Context(), p.ID, game, codes)
	var ce *rules.CodesError
	if errors.As(err, &ce) && ce.Of == "guess" {
		msg, problem := playerTerms(ce, s.glyphs(r.Context(), game))
		s.refuseGuess(w, msg, problem)
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if wait <= 0 {
		writeJSON(w, http.StatusAccepted, map[string]any{"status": "accepted", "receipt": rc})
		return
	}
	g, err := s.awaitSubmitted(r.Context(), p, rc.Guess, game, wait, woke, &stop)
	if err != nil {
		// The guess is charged and queued: answer as without a wait, never
		// with an error a client might retry (and pay twice for).
		if r.Context().Err() == nil {
			s.log.Warn("codemojex: guess submitted, reading it back failed", "guess", rc.Guess, "err", err)
		}
		writeJSON(w, http.StatusAccepted, map[string]any{"status": "accepted", "receipt": rc})
		return
	}
	status := http.StatusOK
	if g.Status == codemojex.GuessQueued {
		status = http.StatusAccepted
	}
	writeJSON(w, status, map[string]any{"status": "accepted", "receipt": rc, "guess": g})
}

// awaitSubmitted waits up to wait for a just submitted guess of p to leave
// queued and returns it as last read. woke was registered on the player and
// the game before the submit; a scored guess of the player wakes it, which
// may be another of their guesses, so each wake registers again, then reads.
// *stop stops the current registration.
func (s *Server) awaitSubmitted(ctx context.Context, p codemojex.Player, id, game string, wait time.Duration, woke <-chan struct{}, stop *func()) (codemojex.Guess, error) {
	t := time.NewTimer(wait)
	defer t.Stop()
	for {
		last := false
		select {
		case <-woke:
		case <-t.C:
			last = true
		case <-ctx.Done():
			last = true
		case <-s.closed: // shutting down: answer now, the client polls again
			last = true
		}
		(*stop)()
		*stop = func() {}
		if !last {
			woke, *stop = s.hub.Wait(p.ID, game)
		}
		g, err := s.e.GuessOf(ctx, p.ID, id)
		if err != nil || last || g.Status != codemojex.GuessQueued {
			return g, err
		}
	}
}

// refuseGuess answers 422 bad_guess in the player's terms.
func (s *Server) refuseGuess(w http.ResponseWriter, msg string, p GuessProblem) {
	writeJSON(w, http.StatusUnprocessableEntity, guessBody{Error: ErrorDetail{Code: CodeBadGuess, Message: msg}, Problem: p})
}

// glyphs returns the emoji of a game's codes ("" when unknown).
func (s *Server) glyphs(ctx context.Context, game string) func(string) string {
	var set *rules.Set
	if g, err := s.e.Game(ctx, game); err == nil {
		set, _ = s.e.Set(g.Set)
	}
	return func(code string) string {
		if set == nil {
			return ""
		}
		c, _ := set.Cell(rules.Code(code))
		return c.Glyph
	}
}

func (s *Server) guessOne(w http.ResponseWriter, r *http.Request, p codemojex.Player) {
	id := r.PathValue("id")
	wait, err := durationParam(r, "wait", 0, s.cfg.MaxWait)
	if err != nil {
		s.failWith(w, http.StatusBadRequest, CodeBadRequest, err.Error())
		return
	}
	// Register before reading, so a score landing in between still wakes us.
	woke, stop := s.hub.Wait(id)
	defer stop()
	g, err := s.e.GuessOf(r.Context(), p.ID, id)
	if err == nil && g.Status == codemojex.GuessQueued && wait > 0 {
		voided, stopGame := s.hub.Wait(g.Game)
		t := time.NewTimer(wait)
		select {
		case <-woke:
		case <-voided:
		case <-t.C:
		case <-r.Context().Done():
		case <-s.closed: // shutting down: answer now, the client polls again
		}
		t.Stop()
		stopGame()
		g, err = s.e.GuessOf(r.Context(), p.ID, id)
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"guess": g})
}

func (s *Server) history(w http.ResponseWriter, r *http.Request, p codemojex.Player) {
	game := r.PathValue("id")
	limit, err := intParam(r, "limit", 50, 1, views.HistorySize)
	if err != nil {
		s.failWith(w, http.StatusBadRequest, CodeBadRequest, err.Error())
		return
	}
	if _, err := s.e.Game(r.Context(), game); err != nil {
		s.fail(w, r, err)
		return
	}
	var ids []string
	err = read(r.Context(), s.views.Players, func(ps *views.Players) {
		h := ps.Players[p.ID]
		if h == nil {
			return
		}
		for i := len(h.History) - 1; i >= 0 && len(ids) < limit; i-- {
			if h.History[i].Game == game {
				ids = append(ids, h.History[i].Guess)
			}
		}
	})
	if err != nil {
		s.fail(w, r, err)
		return
	}
	gs, err := s.e.Guesses(r.Context(), p.ID, ids)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"game": game, "history": gs})
}
