package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/dcb"
)

// queryDoc is the JSON result of query.
type queryDoc struct {
	Queue string `json:"queue"`
	// After is the position the read started after; Next the position it
	// is complete through (what a conditional append's --after takes);
	// Head the queue's last position when read.
	After  uint64          `json:"after"`
	Next   uint64          `json:"next"`
	Head   uint64          `json:"head"`
	Count  int             `json:"count"`
	Events []queryEventDoc `json:"events"`
}

// queryEventDoc is an event of a query: its stream and the event.
type queryEventDoc struct {
	Stream string `json:"stream"`
	eventDoc
}

// parseItem parses a query item "[TYPES:]TAGS": TYPES a comma-separated
// list of stream names (none: any stream), TAGS a comma-separated list of
// key=value tags, at least one. A stream name holds no ":", so the first
// ":" ends the types (a tag's value may hold ":").
func parseItem(flag, s string) (dcb.Item, error) {
	var it dcb.Item
	types, tags, ok := strings.Cut(s, ":")
	if !ok {
		types, tags = "", s
	} else if strings.Contains(types, "=") {
		// No types: the ":" belongs to the first tag's value.
		types, tags = "", s
	}
	if types != "" {
		it.Types = strings.Split(types, ",")
	}
	if tags != "" {
		it.Tags = strings.Split(tags, ",")
	}
	if len(it.Tags) == 0 {
		return it, usagef("invalid --%s %q: want [TYPE,...:]key=value,... with at least one tag", flag, s)
	}
	return it, nil
}

// parseQuery builds a query from --type/--tag (one item) and --item
// (one more item each) and validates it before any I/O.
func parseQuery(types, tags, items []string) (dcb.Query, error) {
	var q dcb.Query
	if len(tags) > 0 {
		q = append(q, dcb.Item{Types: types, Tags: tags})
	} else if len(types) > 0 {
		return nil, usagef("query: --type needs --tag (a query selects tagged events by their tags)")
	}
	for _, s := range items {
		it, err := parseItem("item", s)
		if err != nil {
			return nil, err
		}
		q = append(q, it)
	}
	if len(q) == 0 {
		return nil, usagef("query: give --tag (with --type) or --item")
	}
	return q, q.Validate()
}

func (a *app) queryCommand() *cobra.Command {
	var (
		types, tags, items []string
		from               uint64
		limit              int
	)
	cmd := &cobra.Command{
		Use:   "query",
		Short: "Read the tagged events of the queue matching a query, in position order",
		Long: `Read the tagged events of --queue that match a query, across its streams, in
queue position order (the order their appends took), after position --from.

A query is one or more items; an event matches when it matches any item. An
item is a set of types (stream names; none: any stream) and a set of tags
(key=value, at least one) the event must all carry. --type (repeatable) and
--tag (repeatable) make one item; --item "[TYPE,...:]key=value,..." adds one
more each (repeatable). Only tagged events (emq append --tag) have positions
and are found.

Without --limit the whole answer up to the queue's head is printed; with it,
one page of at most --limit events. The table has the columns of emq read
with a STREAM column first; the FIELDS column starts with the event's @pos
and @tags. The position the answer is complete through ("next") is printed
on stderr, and in the JSON document, for a conditional append's --after (see
emq append --if-none). A position beyond the queue's head, or below what a
trim left of a stream the query reads, exits 1 (never read as "nothing").`,
		Example: `  emq query --tag game=GAM1
  emq query --type game-opened --type game-closed --tag game=GAM1
  emq query --item 'guessed:game=GAM1,player=PLR1' --item 'game-closed:game=GAM1'
  emq query --tag game=GAM1 --from 120 --limit 50 --json`,
		Args: argsRange(0, 0),
		RunE: body(func(cmd *cobra.Command, _ []string) error {
			if err := new(echomq.Client).Stream(a.queue, "s").Err(); err != nil {
				return err
			}
			q, err := parseQuery(types, tags, items)
			if err != nil {
				return err
			}
			if limit < 0 || limit > dcb.MaxLimit {
				return usagef("invalid --limit %d: want 0..%d", limit, dcb.MaxLimit)
			}
			return a.withClient(cmd.Context(), func(c *echomq.Client) error {
				return a.query(cmd.Context(), c, q, from, limit)
			})
		}),
	}
	cmd.Flags().StringArrayVar(&types, "type", nil, "a type (stream) of the item --tag makes (repeatable; none: any stream)")
	cmd.Flags().StringArrayVar(&tags, "tag", nil, "a tag key=value every matching event carries (repeatable)")
	cmd.Flags().StringArrayVar(&items, "item", nil, `one more item "[TYPE,...:]key=value,..." (repeatable)`)
	cmd.Flags().Uint64Var(&from, "from", 0, "read after this position (0: from the start)")
	cmd.Flags().IntVarP(&limit, "limit", "n", 0, "one page of at most this many events (0: everything up to the head)")
	return cmd
}

func (a *app) query(ctx context.Context, c *echomq.Client, q dcb.Query, from uint64, limit int) error {
	s, err := dcb.New(c, a.queue)
	if err != nil {
		return err
	}
	var p dcb.Page
	if limit > 0 {
		if p, err = s.Read(ctx, q, from, &dcb.ReadOpts{Limit: limit}); err != nil {
			return err
		}
	} else {
		if p.Events, p.Next, err = s.ReadAll(ctx, q, from); err != nil {
			return err
		}
		p.Head = p.Next
	}
	if a.json {
		doc := queryDoc{Queue: a.queue, After: from, Next: p.Next, Head: p.Head, Count: len(p.Events), Events: make([]queryEventDoc, len(p.Events))}
		for i, ev := range p.Events {
			doc.Events[i] = queryEventDoc{Stream: ev.Stream, eventDoc: toEventDoc(ev.Event)}
		}
		return writeJSON(a.stdout, doc)
	}
	if _, err := fmt.Fprintf(a.stdout, "%-16s  "+eventRowFormat, "STREAM", "ID", "ENTRY", "TIME", "FIELDS"); err != nil {
		return err
	}
	for _, ev := range p.Events {
		if _, err := fmt.Fprintf(a.stdout, "%-16s  ", ev.Stream); err != nil {
			return err
		}
		if err := writeEventRow(a.stdout, ev.Event); err != nil {
			return err
		}
	}
	more := ""
	if p.More() {
		more = "; more after it: --from " + strconv.FormatUint(p.Next, 10)
	}
	_, err = fmt.Fprintf(a.stderr, "next %d head %d%s\n", p.Next, p.Head, more)
	return err
}
