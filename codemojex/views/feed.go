package views

import (
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/projection"
)

// FeedSize is how many items the activity feed keeps.
const FeedSize = 500

// FeedItem is one line of the activity feed: a game started, a player
// joined, a guess scored or a game settled. It never holds a guess's
// codes.
type FeedItem struct {
	Entry Entry `json:"entry"`
	// Kind is "started", "joined", "scored" or "settled".
	Kind   string `json:"kind"`
	Game   string `json:"game"`
	Room   string `json:"room"`
	Player string `json:"player,omitempty"`
	// Attempt, Points, Pct and Best describe a scored guess; Sealed marks
	// one of a blind game, whose points stay hidden. Points and Pct are
	// always present, 0 included (a guess of no points is news too).
	Attempt int  `json:"attempt,omitempty"`
	Points  int  `json:"points"`
	Pct     int  `json:"pct"`
	Best    int  `json:"best,omitempty"`
	Sealed  bool `json:"sealed,omitempty"`
	// Reason, Prize, Paid and Winners describe a settlement.
	Reason  string             `json:"reason,omitempty"`
	Prize   int64              `json:"prize,omitempty"`
	Paid    int64              `json:"paid,omitempty"`
	Winners []codemojex.Payout `json:"winners,omitempty"`
	AtMS    int64              `json:"at_ms"`
}

// Feed is the state of the activity feed: the newest [FeedSize] items,
// oldest first.
type Feed struct {
	Items []FeedItem `json:"items"`
}

// FeedProjection folds game-started, player-joined, guess-scored and
// game-settled into the activity feed. Items are kept in entry id order whatever order the two streams
// are folded in, so the live state equals a rebuild.
func FeedProjection() projection.Projection[*Feed] {
	return projection.Projection[*Feed]{
		Name:    "codemojex-feed",
		Version: 2, // 2: game-started and player-joined are items too
		Init:    func() *Feed { return &Feed{Items: []FeedItem{}} },
		Apply: func(f *Feed, ev projection.Event) *Feed {
			it := FeedItem{Entry: Entry(ev.Entry), Game: ev.Fields.Value("game"), Room: ev.Fields.Value("room"), AtMS: ev.Time().UnixMilli()}
			switch ev.Stream {
			case codemojex.StreamGameStarted:
				it.Kind, it.Player = "started", ev.Fields.Value("player")
			case codemojex.StreamPlayerJoined:
				it.Kind, it.Player = "joined", ev.Fields.Value("player")
			case codemojex.StreamGuessScored:
				it.Kind, it.Player, it.Attempt = "scored", ev.Fields.Value("player"), inum(ev, "attempt")
				it.Points, it.Pct, it.Best = inum(ev, "points"), inum(ev, "pct"), inum(ev, "best")
				it.Sealed = ev.Fields.Value("sealed") == "1"
			case codemojex.StreamGameSettled:
				it.Kind, it.Reason, it.Prize, it.Paid, it.Winners = "settled", ev.Fields.Value("reason"), num(ev, "prize"), num(ev, "paid"), payouts(ev)
			default:
				return f
			}
			f.Items = insertSorted(f.Items, it, func(i FeedItem) Entry { return i.Entry }, FeedSize)
			return f
		},
	}
}

// Since returns the items minted at or after sinceMS (unix milliseconds),
// newest first, at most limit; with a game, only that game's.
func (f *Feed) Since(sinceMS int64, limit int, game string) []FeedItem {
	out := []FeedItem{}
	for i := len(f.Items) - 1; i >= 0 && len(out) < limit; i-- {
		if f.Items[i].AtMS < sinceMS {
			break
		}
		if game != "" && f.Items[i].Game != game {
			continue
		}
		out = append(out, f.Items[i])
	}
	return out
}
