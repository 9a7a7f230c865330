package cli

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

func (a *app) idNewCommand() *cobra.Command {
	var n int
	cmd := &cobra.Command{
		Use:   "new BRAND",
		Short: "Mint new ids of a brand",
		Long: `Mint --count new ids of BRAND at the clock's millisecond, one per line.

With --node the ids are minted offline with that node id. Without it the node
id is leased in the --queue from the engine, as appends do, so that two
minting processes of the queue never share one (ids are unique within their
queue); on the embedded engine the lease proves nothing (it is gone when emq
exits), so give --node when minting for real without --url.`,
		Example: "  emq id new PLR\n  emq id new EVT -n 3 --node 7",
		Args:    argsRange(1, 1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if _, err := echomq.NewID(args[0], 0); err != nil {
				return err
			}
			if n < 1 {
				return usagef("invalid --count %d: must be at least 1", n)
			}
			var m *echomq.Minter
			if node := a.nodeID(); node != nil {
				var err error
				if m, err = echomq.NewMinter(*node, a.opts.Clock); err != nil {
					return err
				}
			} else {
				c, err := a.connect(cmd.Context(), io.Discard)
				if err != nil {
					return err
				}
				defer c.Close()
				if m, err = c.Minter(cmd.Context(), a.queue); err != nil {
					return err
				}
			}
			ids := make([]echomq.ID, n)
			for i := range ids {
				ids[i] = m.NextID(args[0])
			}
			return a.writeIDs(ids, false)
		}),
	}
	cmd.Flags().IntVarP(&n, "count", "n", 1, "how many ids to mint")
	return cmd
}
