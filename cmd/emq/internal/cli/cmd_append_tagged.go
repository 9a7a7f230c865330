package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
)

// conflictError is a conditional append refused: an event matching its
// condition lies after its position. It exits [ExitConflict].
type conflictError struct{ err *dcb.ConflictError }

func (e *conflictError) Error() string {
	return fmt.Sprintf("append: condition not met: %s %s at position %d matches --if-none after position %d; nothing written",
		e.err.Stream, e.err.ID, e.err.Position, e.err.After)
}

// appendCondition checks --tag, --if-none and --after before any I/O and
// returns the condition (nil without --if-none).
func appendCondition(cmd *cobra.Command, tags, ifNone []string, after uint64) (*dcb.Condition, error) {
	if len(tags) > 0 {
		if err := (dcb.Query{{Tags: tags}}).Validate(); err != nil {
			return nil, usagef("invalid --tag: %v", err)
		}
	}
	if len(ifNone) == 0 {
		if cmd.Flags().Changed("after") {
			return nil, usagef("--after needs --if-none")
		}
		return nil, nil
	}
	if len(tags) == 0 {
		return nil, usagef("--if-none needs --tag (a conditional append writes a tagged event)")
	}
	var q dcb.Query
	for _, s := range ifNone {
		it, err := parseItem("if-none", s)
		if err != nil {
			return nil, err
		}
		q = append(q, it)
	}
	if err := q.Validate(); err != nil {
		return nil, err
	}
	return &dcb.Condition{Query: q, After: after}, nil
}

// appendTagged appends one tagged event through package dcb, with cond or
// unconditionally, and prints its receipt.
func (a *app) appendTagged(ctx context.Context, stream string, fields echomq.Fields, tags []string, cond *dcb.Condition) error {
	return a.withClient(ctx, func(c *echomq.Client) error {
		s, err := dcb.New(c, a.queue)
		if err != nil {
			return err
		}
		got, err := s.Append(ctx, []dcb.Append{{Stream: stream, Fields: fields, Tags: tags}}, cond)
		if ce, ok := errors.AsType[*dcb.ConflictError](err); ok {
			return &conflictError{err: ce}
		}
		if err != nil {
			return err
		}
		ap := got[0]
		if a.json {
			return writeJSON(a.stdout, appendDoc{
				Queue: a.queue, Stream: stream, ID: ap.ID.String(), Entry: ap.Entry.String(),
				Time: fmtTime(ap.ID.Time()), Position: ap.Position, Tags: tags,
			})
		}
		_, err = fmt.Fprintln(a.stdout, ap.ID)
		return err
	})
}
