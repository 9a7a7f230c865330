package views

import (
	"time"

	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/projection"
)

// ResultDays is how many days of results the results view keeps, counted
// back from the newest settlement.
const ResultDays = 31

// Result is one settled game.
type Result struct {
	Entry     Entry              `json:"entry"`
	Game      string             `json:"game"`
	Room      string             `json:"room"`
	Mode      string             `json:"mode"`
	Reason    string             `json:"reason"`
	Prize     int64              `json:"prize"`
	Paid      int64              `json:"paid"`
	Winners   []codemojex.Payout `json:"winners"`
	Players   int                `json:"players"`
	Guesses   int                `json:"guesses"`
	Best      int                `json:"best"`
	StartedMS int64              `json:"started_ms"`
	SettledMS int64              `json:"settled_ms"`
}

// Results is the state of the results view: settled games per UTC day
// ("2006-01-02") of their settlement, in settlement order.
type Results struct {
	Days map[string][]Result `json:"days"`
}

// Day returns the UTC day key of t.
func Day(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// ResultsProjection folds game-settled into results per day.
func ResultsProjection() projection.Projection[*Results] {
	return projection.Projection[*Results]{
		Name:    "codemojex-results",
		Version: 1,
		Init:    func() *Results { return &Results{Days: map[string][]Result{}} },
		Apply: func(r *Results, ev projection.Event) *Results {
			if ev.Stream != codemojex.StreamGameSettled {
				return r
			}
			res := Result{
				Entry: Entry(ev.Entry), Game: ev.Fields.Value("game"), Room: ev.Fields.Value("room"), Mode: ev.Fields.Value("mode"),
				Reason: ev.Fields.Value("reason"), Prize: num(ev, "prize"), Paid: num(ev, "paid"), Winners: payouts(ev),
				Players: inum(ev, "players"), Guesses: inum(ev, "guesses"), Best: inum(ev, "best"),
				StartedMS: num(ev, "started_ms"), SettledMS: num(ev, "settled_ms"),
			}
			if res.Winners == nil {
				res.Winners = []codemojex.Payout{}
			}
			day := Day(ev.Time())
			r.Days[day] = insertSorted(r.Days[day], res, func(x Result) Entry { return x.Entry }, 0)
			horizon := Day(ev.Time().AddDate(0, 0, -ResultDays))
			for d := range r.Days {
				if d < horizon {
					delete(r.Days, d)
				}
			}
			return r
		},
	}
}
