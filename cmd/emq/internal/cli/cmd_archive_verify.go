package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq/archive"
)

// verifyDoc is the JSON result of archive verify: one per stream.
type verifyDoc struct {
	Queue         string          `json:"queue"`
	Stream        string          `json:"stream"`
	OK            bool            `json:"ok"`
	Manifest      *string         `json:"manifest_error"` // null: the manifest is sound
	Generation    uint64          `json:"generation"`
	Segments      int             `json:"segments"`
	Entries       int64           `json:"entries"`
	Unchecksummed int             `json:"unchecksummed"`
	Bad           []badSegmentDoc `json:"bad"`
}

// badSegmentDoc names a bad segment and exactly the entries it holds.
type badSegmentDoc struct {
	Name    string `json:"name"`
	First   string `json:"first"`
	Last    string `json:"last"`
	Entries int64  `json:"entries"`
	Error   string `json:"error"`
}

func toVerifyDoc(r archive.VerifyResult) verifyDoc {
	d := verifyDoc{
		Queue: r.Stream.Queue, Stream: r.Stream.Stream, OK: r.OK(), Generation: r.Generation,
		Segments: r.Segments, Entries: r.Entries, Unchecksummed: r.Unchecksummed, Bad: []badSegmentDoc{},
	}
	if r.Manifest != nil {
		s := oneLine(r.Manifest)
		d.Manifest = &s
	}
	for _, b := range r.Bad {
		reason := oneLine(b.Err)
		if ce := (*archive.CorruptError)(nil); errors.As(b.Err, &ce) && ce.Name == b.Segment.Name {
			reason = ce.Reason // the name is in the row already
		}
		d.Bad = append(d.Bad, badSegmentDoc{
			Name: b.Segment.Name, First: b.Segment.First.String(), Last: b.Segment.Last.String(),
			Entries: b.Segment.Count, Error: reason,
		})
	}
	return d
}

func (a *app) archiveVerifyCommand(so *storeOpts) *cobra.Command {
	return &cobra.Command{
		Use:   "verify [STREAM]",
		Short: "Scrub the archive: check every manifest and segment, report each bad one",
		Long: `Scrub the archive of STREAM, or of every archived stream of --queue when no
STREAM is given: check each manifest's checksum and invariants, then fetch
every segment it names, check its size and SHA-256 against the manifest and
decode it in full (row count, id span, order). It needs no engine and changes
nothing.

Every bad manifest and segment is reported, with the ids and the number of
entries a bad segment holds (what is lost if it is quarantined; see
docs/archive.md for recovery). Segments committed before checksums existed
are decoded in full and counted as unchecksummed. Exit 0: all sound; exit 1:
something is bad (or the store failed); exit 3: STREAM has no archive or the
--store directory is missing.`,
		Example: "  emq archive verify orders\n  emq archive verify --queue shop --json",
		Args:    argsRange(0, 1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				if err := a.checkStream(args[0]); err != nil {
					return err
				}
			} else if err := a.checkStream("x"); err != nil { // the queue name alone
				return err
			}
			if err := so.check(cmd, a.opts.Getenv); err != nil {
				return err
			}
			ctx := cmd.Context()
			store, release, err := so.open(ctx, false)
			if err != nil {
				return err
			}
			defer release()
			var results []archive.VerifyResult
			if len(args) == 1 {
				r, err := archive.Verify(ctx, store, a.queue, args[0])
				if err != nil {
					return err
				}
				if r.Manifest == nil && r.Generation == 0 {
					return &notFoundError{what: fmt.Sprintf("archive of stream %q in queue %q", args[0], a.queue)}
				}
				results = append(results, r)
			} else if results, err = archive.VerifyQueue(ctx, store, a.queue); err != nil {
				return err
			}
			if err := a.writeVerify(results); err != nil {
				return err
			}
			bad := 0
			for _, r := range results {
				if !r.OK() {
					bad++
				}
			}
			if bad > 0 {
				return fmt.Errorf("archive verify: %d of %d stream%s of queue %q hold bad data", bad, len(results), plural(len(results)), a.queue)
			}
			return nil
		}),
	}
}

func (a *app) writeVerify(results []archive.VerifyResult) error {
	docs := make([]verifyDoc, len(results))
	for i, r := range results {
		docs[i] = toVerifyDoc(r)
	}
	if a.json {
		return writeJSON(a.stdout, docs)
	}
	tw := table(a.stdout)
	fmt.Fprintf(tw, "STREAM\tGENERATION\tSEGMENTS\tENTRIES\tBAD\tSTATUS\n")
	for _, d := range docs {
		status := "ok"
		switch {
		case d.Manifest != nil:
			status = "manifest corrupt: " + *d.Manifest
		case len(d.Bad) > 0:
			status = "bad segments"
		case d.Unchecksummed > 0:
			status = fmt.Sprintf("ok (%d unchecksummed)", d.Unchecksummed)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%s\n", d.Stream, d.Generation, d.Segments, d.Entries, len(d.Bad), status)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, d := range docs {
		for _, b := range d.Bad {
			if _, err := fmt.Fprintf(a.stdout, "bad %s: %d entries %s..%s: %s\n", b.Name, b.Entries, b.First, b.Last, b.Error); err != nil {
				return err
			}
		}
	}
	return nil
}
