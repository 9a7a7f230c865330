package bot

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/tables"
)

// The notifications: the engine's events, read by consumer groups (at
// least once), become messages in the players' outbox lanes exactly once.
// Each notification has a record in the notices table keyed by the event
// and the player: the first delivery of an event writes the records with
// fresh job ids in one transaction and queues the jobs; a redelivery finds
// the records and queues the same ids again, which the outbox refuses as
// duplicates (or skips, once sent).

// consumers returns the consumer groups that notify players.
func (b *Bot) consumers() ([]*echomq.Consumer, error) {
	var out []*echomq.Consumer
	for _, e := range b.e.Engines() { // every shard's events
		for stream, h := range map[string]echomq.HandlerFunc{
			codemojex.StreamGuessScored: b.scored,
			codemojex.StreamGameSettled: b.settled,
		} {
			c, err := b.c.Consumer(&echomq.ConsumerConfig{
				Queue: e.Queue(), Stream: stream, Group: b.cfg.NotifyGroup,
				Start: echomq.StartNew, Handle: h, MinIdle: b.cfg.Redelivery, Logger: b.log,
			})
			if err != nil {
				return nil, err
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// notice is one notification of an event to a player.
type notice struct {
	player string
	text   string
}

// notify queues ns, the notifications of event key, once each.
func (b *Bot) notify(ctx context.Context, key string, ns []notice) error {
	type queued struct {
		m  message
		id echomq.ID
	}
	var todo []queued
	players := make([]string, len(ns))
	for i, n := range ns {
		players[i] = n.player
	}
	err := b.update(ctx, func(ctx context.Context, tx *tables.Tx) error {
		todo = todo[:0]
		// Two round trips however many players: their chats, then the
		// notices of those who have one.
		chats, err := getMany[chatRecord](ctx, tx, tableChats, players)
		if err != nil {
			return err
		}
		var keys []string
		var reach []int
		for i, c := range chats {
			if c != nil { // else not a Telegram player
				keys, reach = append(keys, key+"."+ns[i].player), append(reach, i)
			}
		}
		recs, err := getMany[noticeRecord](ctx, tx, tableNotices, keys)
		if err != nil {
			return err
		}
		for j, i := range reach {
			rec := recs[j]
			if rec == nil {
				job, err := b.c.MintID(ctx, b.e.Shard(0).Queue(), codemojex.BrandJob)
				if err != nil {
					return err
				}
				rec = &noticeRecord{Job: job.String()}
				if err := putJSON(tx, tableNotices, keys[j], rec); err != nil {
					return err
				}
			}
			if rec.Sent {
				continue
			}
			id, err := echomq.ParseID(rec.Job)
			if err != nil {
				return err
			}
			todo = append(todo, queued{message{Chat: chats[i].Chat, Text: ns[i].text, Notice: keys[j]}, id})
		}
		return nil
	})
	if err != nil {
		return err
	}
	reqs := make([]lanes.Request, 0, len(todo))
	for _, q := range todo {
		raw, err := json.Marshal(q.m)
		if err != nil {
			return err
		}
		reqs = append(reqs, lanes.Request{Lane: lane(q.m.Chat), Payload: raw, Opts: &lanes.EnqueueOpts{ID: q.id}})
	}
	// One script call per 256 players; a job queued before (a
	// redelivery) is refused as a duplicate, which is the point.
	res, err := b.outbox.EnqueueBatch(ctx, reqs)
	if err != nil {
		return err
	}
	for _, r := range res {
		if r.Err != nil && !errors.Is(r.Err, lanes.ErrDuplicate) {
			return r.Err
		}
	}
	return nil
}

// scored tells a player what their guess scored.
func (b *Bot) scored(ctx context.Context, d echomq.Delivery) error {
	f := d.Fields
	player, game, guess := f.Value("player"), f.Value("game"), f.Value("guess")
	g, err := b.e.GuessOf(ctx, player, guess)
	if err != nil {
		return err
	}
	shown := strings.Join(b.glyphs(ctx, game, g.Codes), " ")
	text := fmt.Sprintf("🎯 %s scored %s points (%s%%). Your best: %s%%.", shown, f.Value("points"), f.Value("pct"), f.Value("best"))
	if f.Value("sealed") == "1" {
		text = fmt.Sprintf("📨 %s is in. This is a blind game: the points are revealed when it ends.", shown)
	}
	return b.notify(ctx, d.Key(), []notice{{player: player, text: text}})
}

// settled tells every player of a game how it ended (the end screen of
// the web app, as text): the result, the revealed code (a blind game's
// commitment, salt and check too), the winners and their prizes, the
// player's own rank and winnings, and the way to the next game.
func (b *Bot) settled(ctx context.Context, d echomq.Delivery) error {
	f := d.Fields
	game := f.Value("game")
	var winners []codemojex.Payout
	if err := json.Unmarshal([]byte(cmp.Or(f.Value("winners"), "[]")), &winners); err != nil {
		return fmt.Errorf("bot: game-settled %s: winners: %w", d.Key(), err)
	}
	g, err := b.e.Game(ctx, game)
	if err != nil {
		return err
	}
	members, err := b.e.Members(ctx, game)
	if err != nil {
		return err
	}
	room := "The game"
	if r, err := b.e.Room(ctx, g.Room); err == nil {
		room = r.Name
	}
	names := map[string]string{}
	for _, s := range g.Board {
		names[s.Player] = s.Name
	}
	name := func(player string) string {
		if n := names[player]; n != "" {
			return n
		}
		if p, err := b.e.Player(ctx, player); err == nil && p.Name != "" {
			return p.Name
		}
		return "a player"
	}
	head := fmt.Sprintf("🏁 %s is over: %s.", room, endReason(f.Value("reason"), len(winners) == 0))
	if len(g.Secret) > 0 {
		head += "\nThe code: " + strings.Join(b.glyphs(ctx, game, g.Secret), " ")
	}
	if g.Commitment != "" && g.Salt != "" {
		head += "\n" + blindCheck(g)
	}
	won := map[string]int64{}
	var lines []string
	for _, w := range winners {
		won[w.Player] += w.Amount
		lines = append(lines, fmt.Sprintf("%s +%d 💎", name(w.Player), w.Amount))
	}
	result := "Winners: nobody scored above 0, so no prize was paid."
	if len(lines) > 0 {
		result = "Winners: " + strings.Join(lines, ", ") + "."
	}
	rank := map[string]int{}
	for i, s := range g.Board {
		rank[s.Player] = i + 1
	}
	ns := make([]notice, 0, len(members))
	for _, m := range members {
		var you string
		switch r := rank[m.Player]; {
		case r == 0 && m.Attempts == 0:
			you = "You made no guess this game."
		case r == 0:
			you = "You did not score above 0 this game."
		default:
			you = fmt.Sprintf("You placed #%d of %d with %d points", r, len(g.Board), g.Board[r-1].Best)
			if amt := won[m.Player]; amt > 0 {
				you += fmt.Sprintf(" and won %d 💎!", amt)
			} else {
				you += "."
			}
		}
		text := head + "\n" + result + "\n" + you + "\nNext game: /rooms"
		ns = append(ns, notice{player: m.Player, text: text})
	}
	return b.notify(ctx, d.Key(), ns)
}

// endReason words a settlement's reason as the web app's end screen does.
func endReason(reason string, void bool) string {
	how := map[string]string{codemojex.ReasonCrack: "the code was cracked", codemojex.ReasonTimer: "time is up", codemojex.ReasonOperator: "closed by the operator"}[reason]
	how = cmp.Or(how, reason)
	if void {
		how += " (void: nobody scored, no prize paid)"
	}
	return how
}

// blindCheck shows a settled blind game's commitment, its salt and the
// check that they match its secret.
func blindCheck(g codemojex.Game) string {
	var r rules.Reveal
	for i, c := range g.Secret {
		if i < rules.CodeLength {
			r.Secret[i] = rules.Code(c)
		}
	}
	r.Salt = g.Salt
	verdict := "✅ matches the commitment"
	if rules.Verify(g.Commitment, r) != nil {
		verdict = "❌ does NOT match the commitment"
	}
	return fmt.Sprintf("Commitment (published at the start): %s\nSalt (nonce): %s\nCheck: sha256(code1 0x1E … code6 0x1E salt) %s.\nCheck it yourself: printf '%s\\036%%s' %s | sha256sum",
		g.Commitment, g.Salt, verdict, strings.Join(g.Secret, `\036`), g.Salt)
}
