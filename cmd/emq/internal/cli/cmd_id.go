package cli

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

// idDoc is the JSON form of a decoded id.
type idDoc struct {
	ID    string `json:"id"`
	Brand string `json:"brand"`
	// Snowflake is a decimal string: 63 bits exceed the integers JSON
	// readers such as JavaScript and jq hold exactly.
	Snowflake string  `json:"snowflake"`
	Time      string  `json:"time"`
	UnixMs    int64   `json:"unix_ms"`
	Node      int     `json:"node"`
	Seq       int     `json:"seq"`
	Entry     *string `json:"entry"` // the A1 stream entry id; null for brands other than EVT
}

type idsDoc struct {
	IDs []idDoc `json:"ids"`
}

func toIDDoc(id echomq.ID) idDoc {
	s := id.Snowflake()
	d := idDoc{
		ID: id.String(), Brand: id.Brand(), Snowflake: strconv.FormatInt(int64(s), 10),
		Time: fmtTime(id.Time()), UnixMs: s.Time().UnixMilli(), Node: s.Node(), Seq: s.Seq(),
	}
	if id.Brand() == echomq.BrandEvent {
		e := id.EntryID().String()
		d.Entry = &e
	}
	return d
}

// writeIDs prints ids as a table (full) or one id per line (!full), or JSON.
func (a *app) writeIDs(ids []echomq.ID, full bool) error {
	docs := make([]idDoc, len(ids))
	for i, id := range ids {
		docs[i] = toIDDoc(id)
	}
	if a.json {
		return writeJSON(a.stdout, idsDoc{IDs: docs})
	}
	if !full {
		for _, d := range docs {
			if _, err := fmt.Fprintln(a.stdout, d.ID); err != nil {
				return err
			}
		}
		return nil
	}
	tw := table(a.stdout)
	fmt.Fprintln(tw, "ID\tBRAND\tSNOWFLAKE\tTIME\tNODE\tSEQ\tENTRY")
	for _, d := range docs {
		entry := "-"
		if d.Entry != nil {
			entry = *d.Entry
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%s\n", d.ID, d.Brand, d.Snowflake, d.Time, d.Node, d.Seq, entry)
	}
	return tw.Flush()
}

func (a *app) idCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "id",
		Short: "Decode, encode and mint branded ids",
		Long: `Branded ids are a 3-letter brand (EVT, JOB, PLR, ROM, GAM, GES, EMS, TXN) and an
11-character base62 snowflake: 41 bits of milliseconds since 2024-01-01T00:00:00Z,
10 bits of node id, 12 bits of sequence. An EVT id maps onto the stream entry id
"<unix ms>-<node<<12|seq>" (mapping A1), so stream order is mint order.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.idDecodeCommand(), a.idEncodeCommand(), a.idNewCommand())
	return cmd
}

func (a *app) idDecodeCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "decode ID [ID...]",
		Short: "Decode branded ids (or entry ids) into brand, instant, node, sequence and entry id",
		Long: `Decode each ID: a branded id, or a stream entry id "<ms>-<seq>" (shown as the
EVT id that maps onto it). With no ID, or "-", the ids are read from stdin,
separated by white space. One bad id fails the whole command (exit 2).`,
		Example: "  emq id decode EVT000xY9Wvvcd USR0KHTOWnGLuC\n  emq id decode 1704117200000-1620567",
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || len(args) == 1 && args[0] == "-" {
				var err error
				if args, err = readWords(a.stdin); err != nil {
					return err
				}
			}
			ids := make([]echomq.ID, len(args))
			for i, s := range args {
				id, err := decodeAny(s)
				if err != nil {
					return err
				}
				ids[i] = id
			}
			return a.writeIDs(ids, true)
		}),
	}
}

// decodeAny parses a branded id, or an entry id as the EVT id mapping onto it.
func decodeAny(s string) (echomq.ID, error) {
	if e, err := echomq.ParseEntryID(s); err == nil {
		snow, ok := e.Snowflake()
		if !ok {
			return echomq.ID{}, usagef("entry id %q is not the image of any EVT id", s)
		}
		return echomq.NewID(echomq.BrandEvent, snow)
	}
	return echomq.ParseID(s)
}

func readWords(r io.Reader) ([]string, error) {
	if r == nil {
		return nil, usagef("id decode: want ID [ID...] (no ids given)")
	}
	var words []string
	sc := bufio.NewScanner(r)
	sc.Split(bufio.ScanWords)
	for sc.Scan() {
		words = append(words, sc.Text())
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read stdin: %w", err)
	}
	if len(words) == 0 {
		return nil, usagef("id decode: want ID [ID...] (none on stdin)")
	}
	return words, nil
}

func (a *app) idEncodeCommand() *cobra.Command {
	return &cobra.Command{
		Use:     "encode BRAND SNOWFLAKE",
		Short:   "Brand a decimal snowflake and print the id",
		Example: "  emq id encode USR 274557032793636864",
		Args:    argsRange(2, 2),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			snow, err := parseSnowflake(args[1])
			if err != nil {
				return err
			}
			id, err := echomq.NewID(args[0], snow)
			if err != nil {
				return err
			}
			return a.writeIDs([]echomq.ID{id}, false)
		}),
	}
}
