package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

// appendDoc is the JSON receipt of an append.
// A tagged append also has its tags, and its position when the append
// learnt it (a conditional one, or one without --key and --expect-top).
type appendDoc struct {
	Queue    string   `json:"queue"`
	Stream   string   `json:"stream"`
	ID       string   `json:"id"`
	Entry    string   `json:"entry"`
	Time     string   `json:"time"`
	Position uint64   `json:"position,omitempty"`
	Tags     []string `json:"tags,omitempty"`
}

func (a *app) appendCommand() *cobra.Command {
	var idFlag, keyFlag, expectFlag string
	var tags, ifNone []string
	var after uint64
	cmd := &cobra.Command{
		Use:   "append STREAM name=value [name=value...]",
		Short: "Append an event and print its id (the receipt)",
		Long: `Append an event to STREAM (creating it) and print its EVT id, the receipt.

The payload is name=value pairs in the order given; a value is everything after
the first "=". The name "id" is reserved for the receipt. The id is minted with
the --node node id (default: leased) at the clock's millisecond; --id appends
under an EVT id of your own instead, which must be above the stream's last id
and at most 5s ahead of the engine's clock (else exit 1, never retried).

--key K makes the append idempotent: a repeat of K on the stream within the
dedupe window (10 minutes) prints the first append's receipt and writes
nothing, so retrying after a timeout or a broken connection is safe (without a
key a retry may append twice). --expect-top ID appends only if the stream's last
event is ID (--expect-top empty: only if the stream has none); otherwise it
exits 1 naming the actual top and writes nothing.

--tag key=value (repeatable) makes the event a tagged event of the queue: it
gets the queue's next position and is found by emq query. --if-none ITEM
(repeatable; ITEM is "[TYPE,...:]key=value,...", as emq query --item) makes
a tagged append conditional: it is written only if no event matching those
items lies after position --after (default 0: none ever, a uniqueness
rule), the items reading any streams of the queue, written here or not.
Otherwise nothing is written and emq exits 4 (conflict), naming the first
such event; --after beyond the queue's head or below what a trim left exits
1. A decision reads with emq query, then appends with --after set to the
query's "next".`,
		Example: `  emq append orders customer=ada total=42
  emq append --id EVT0Ab3dE9xYz1 orders customer=bo total=7
  emq append --key order-17 orders customer=cy total=9
  emq append --expect-top EVT0Ab3dE9xYz1 orders customer=di total=3
  emq append --tag game=GAM1 --tag player=PLR1 guessed word=cat
  emq append --tag name=ada --if-none 'name-claimed:name=ada' name-claimed player=PLR1
  emq append --tag game=GAM1 --if-none 'game-closed:game=GAM1' --after 17 guessed word=dog`,
		Args: argsRange(2, -1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkStream(args[0]); err != nil {
				return err
			}
			fields, err := parseFields(args[1:])
			if err != nil {
				return err
			}
			var given echomq.ID
			if idFlag != "" {
				if given, err = echomq.ParseEventID(idFlag); err != nil {
					return err
				}
			}
			opts := &echomq.AppendOpts{Key: keyFlag}
			switch expectFlag {
			case "":
			case "empty":
				opts.ExpectEmpty = true
			default:
				if opts.ExpectTop, err = echomq.ParseEventID(expectFlag); err != nil {
					return usagef("invalid --expect-top %q: want an EVT id or \"empty\"", expectFlag)
				}
			}
			if !given.IsZero() && (keyFlag != "" || expectFlag != "") {
				return usagef("--id excludes --key and --expect-top")
			}
			if len(keyFlag) > 256 {
				return usagef("invalid --key: longer than 256 bytes")
			}
			cond, err := appendCondition(cmd, tags, ifNone, after)
			if err != nil {
				return err
			}
			if len(tags) > 0 && !given.IsZero() {
				return usagef("--id excludes --tag (a tagged event's id is the engine's next)")
			}
			if cond != nil && (keyFlag != "" || expectFlag != "") {
				return usagef("--if-none excludes --key and --expect-top")
			}
			if len(tags) > 0 && keyFlag == "" && expectFlag == "" {
				return a.appendTagged(cmd.Context(), args[0], fields, tags, cond)
			}
			opts.Tags = tags
			return a.withStream(cmd.Context(), args[0], func(s *echomq.Stream) error {
				id := given
				if id.IsZero() {
					if id, err = s.AppendWith(cmd.Context(), fields, opts); err != nil {
						if ce, ok := errors.AsType[*echomq.ConflictError](err); ok {
							top := "the stream is empty"
							if !ce.Top.IsZero() {
								top = "the top is " + ce.Top.String()
							}
							return fmt.Errorf("append %s: expected top not met: %s", s.Name(), top)
						}
						return err
					}
				} else if err := s.AppendID(cmd.Context(), id, fields); errors.Is(err, echomq.ErrNonMonotonic) {
					return fmt.Errorf("append %s: --id %s is not above the stream's last id", s.Name(), id)
				} else if err != nil {
					return err
				}
				if a.json {
					return writeJSON(a.stdout, appendDoc{
						Queue: a.queue, Stream: s.Name(), ID: id.String(),
						Entry: id.EntryID().String(), Time: fmtTime(id.Time()),
					})
				}
				_, err := fmt.Fprintln(a.stdout, id)
				return err
			})
		}),
	}
	cmd.Flags().StringVar(&idFlag, "id", "", "append under this EVT id instead of minting one")
	cmd.Flags().StringVar(&keyFlag, "key", "", "idempotency key: a repeat within the dedupe window returns the first receipt")
	cmd.Flags().StringVar(&expectFlag, "expect-top", "", `append only if the stream's last event is this EVT id ("empty": no event)`)
	cmd.Flags().StringArrayVar(&tags, "tag", nil, "tag key=value: a tagged event of the queue, found by emq query (repeatable)")
	cmd.Flags().StringArrayVar(&ifNone, "if-none", nil, `append only if no event matching "[TYPE,...:]key=value,..." lies after --after (repeatable; exit 4 if one does)`)
	cmd.Flags().Uint64Var(&after, "after", 0, "the position the --if-none condition starts after (0: no matching event ever)")
	return cmd
}
