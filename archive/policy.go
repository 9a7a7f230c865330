package archive

import (
	"fmt"
	"strings"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/retention"
)

// Policy declares that one stream is archived: what its live tail keeps
// (Keep, a retention rule) and so what each cycle folds into the archive
// and then trims. Keep's approximate/exact mode does not apply: the
// archiver always trims exactly at the successor of the watermark, which
// removes archived entries only. retention.MaxLen(0) archives everything.
type Policy struct {
	Queue  string
	Stream string
	Keep   retention.Rule
}

// Validate returns an [*echomq.NameError] for a bad name and an
// [*echomq.ArgumentError] for a bad rule.
func (p Policy) Validate() error {
	return retention.Policy{Queue: p.Queue, Stream: p.Stream, Rule: p.Keep}.Validate()
}

// String renders the policy as [ParsePolicy] reads it.
func (p Policy) String() string {
	return p.Queue + "/" + p.Stream + " " + strings.TrimSuffix(p.Keep.String(), " exact")
}

// ParsePolicy parses "<queue>/<stream> <rule>" with the rule as
// retention.ParseRule reads it ("cm/guess-scored maxlen 10000",
// "cm/room-opened ago 7d"). Errors as [retention.ParsePolicy].
func ParsePolicy(s string) (Policy, error) {
	rp, err := retention.ParsePolicy(s)
	if err != nil {
		return Policy{}, err
	}
	return Policy{Queue: rp.Queue, Stream: rp.Stream, Keep: rp.Rule}, nil
}

// idOf returns the EVT id whose entry id is e: the id the archive files an
// entry under (equal to the event's own id for every entry EchoMQ wrote).
// An entry id outside the snowflake range returns an [*echomq.IDError].
func idOf(e echomq.EntryID) (echomq.ID, error) {
	snow, ok := e.Snowflake()
	if !ok {
		return echomq.ID{}, &echomq.IDError{Input: e.String(), Reason: "entry id outside the EVT range cannot be archived"}
	}
	return echomq.NewID(echomq.BrandEvent, snow)
}

func streamErr(op string, q, name string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("archive: %s %s/%s: %w", op, q, name, err)
}
