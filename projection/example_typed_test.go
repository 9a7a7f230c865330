package projection_test

import (
	"context"
	"fmt"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/projection"
)

// Scored is the current (v2) guess-scored event; v1 stored the points as
// "score".
type Scored struct {
	Player string `json:"player"`
	Points int    `json:"points"`
}

// A fold over typed values: v1 and v2 events fold alike, because the
// typed source upcasts each event before Apply sees it. Wrap an
// archive.Reader the same way to fold archived history.
func ExampleTypedApply() {
	ctx := context.Background()
	client, _ := demo()
	defer client.Close()

	s := client.Stream("cm", "guess-scored")
	_, _ = s.Append(ctx, echomq.F("player", "PLR1", "score", "120"), nil) // v1
	scored := echomq.NewTyped[Scored](s, nil, &echomq.TypedOpts{Upcasters: []echomq.UpcastFunc{
		func(f echomq.Fields) (echomq.Fields, error) { return f.Rename("score", "points"), nil },
	}})
	_, _ = scored.Append(ctx, Scored{Player: "PLR1", Points: 480}, nil)
	_, _ = scored.Append(ctx, Scored{Player: "PLR2", Points: 600}, nil)

	tv := projection.NewTyped[Scored](scored)
	totals := projection.Projection[map[string]int]{
		Init: func() map[string]int { return map[string]int{} },
		Apply: projection.TypedApply(tv, func(m map[string]int, _ projection.Event, v Scored) map[string]int {
			m[v.Player] += v.Points
			return m
		}),
	}
	got, err := projection.Fold(ctx, projection.All, totals, tv.Source(s))
	fmt.Println(got, err)
	// Output:
	// map[PLR1:600 PLR2:600] <nil>
}
