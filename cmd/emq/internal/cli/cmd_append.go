package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

// appendDoc is the JSON receipt of an append.
type appendDoc struct {
	Queue  string `json:"queue"`
	Stream string `json:"stream"`
	ID     string `json:"id"`
	Entry  string `json:"entry"`
	Time   string `json:"time"`
}

func (a *app) appendCommand() *cobra.Command {
	var idFlag string
	cmd := &cobra.Command{
		Use:   "append STREAM name=value [name=value...]",
		Short: "Append an event and print its id (the receipt)",
		Long: `Append an event to STREAM (creating it) and print its EVT id, the receipt.

The payload is name=value pairs in the order given; a value is everything after
the first "=". The name "id" is reserved for the receipt. The id is minted with
the --node node id (default: leased) at the clock's millisecond; --id appends
under an EVT id of your own instead, which must be above the stream's last id
(else exit 1, never retried).`,
		Example: `  emq append orders customer=ada total=42
  emq append --id EVT0Ab3dE9xYz1 orders customer=bo total=7`,
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
			return a.withStream(cmd.Context(), args[0], func(s *echomq.Stream) error {
				id := given
				if id.IsZero() {
					if id, err = s.Append(cmd.Context(), fields); err != nil {
						return err
					}
				} else if err := s.AppendID(cmd.Context(), id, fields); errors.Is(err, echomq.ErrNonMonotonic) {
					return fmt.Errorf("append %s: --id %s is not above the stream's last id", s.Name(), id)
				} else if err != nil {
					return err
				}
				if a.json {
					return writeJSON(a.stdout, appendDoc{Queue: a.queue, Stream: s.Name(), ID: id.String(),
						Entry: id.EntryID().String(), Time: fmtTime(id.Time())})
				}
				_, err := fmt.Fprintln(a.stdout, id)
				return err
			})
		}),
	}
	cmd.Flags().StringVar(&idFlag, "id", "", "append under this EVT id instead of minting one")
	return cmd
}
