package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/retention"
)

// resultDoc is one policy applied once: a row of retention apply and run.
type resultDoc struct {
	Time    string  `json:"time,omitempty"` // retention run: when the sweep ended
	Sweep   int     `json:"sweep,omitempty"`
	Queue   string  `json:"queue"`
	Stream  string  `json:"stream"`
	Rule    string  `json:"rule"`
	Trim    string  `json:"trim"` // the XTRIM arguments the rule resolved to; "" when refused
	Removed int64   `json:"removed"`
	Result  string  `json:"result"` // ok, refused (under archive control) or failed
	Error   *string `json:"error"`  // null when applied
}

// retentionApplyDoc is the JSON result of retention apply.
type retentionApplyDoc struct {
	Results []resultDoc `json:"results"`
	Removed int64       `json:"removed"`
	Failed  int         `json:"failed"`
}

func toResultDoc(r retention.Result) resultDoc {
	d := resultDoc{Queue: r.Policy.Queue, Stream: r.Policy.Stream, Rule: r.Policy.Rule.String(), Removed: r.Trimmed}
	if r.Spec != (echomq.TrimSpec{}) {
		d.Trim = r.Spec.String()
	}
	d.Result = resultText(r.Err)
	if r.Err != nil {
		e := oneLine(r.Err)
		d.Error = &e
	}
	return d
}

// parsePolicies reads the --policy values: "STREAM RULE" in --queue, or
// "QUEUE/STREAM RULE".
func (a *app) parsePolicies(specs []string) ([]retention.Policy, error) {
	if len(specs) == 0 {
		return nil, usagef(`retention: give at least one --policy "STREAM RULE" (e.g. --policy "orders maxlen 1000")`)
	}
	ps := make([]retention.Policy, 0, len(specs))
	for _, s := range specs {
		s = strings.TrimSpace(s)
		target, _, ok := strings.Cut(s, " ")
		if !ok {
			return nil, usagef(`invalid --policy %q: want "STREAM RULE" or "QUEUE/STREAM RULE" (e.g. "orders maxlen 1000")`, s)
		}
		if !strings.Contains(target, "/") {
			s = a.queue + "/" + s
		}
		p, err := retention.ParsePolicy(s)
		if err != nil {
			return nil, err
		}
		ps = append(ps, p)
	}
	// The driver's own checks (a stream named twice); New does no I/O.
	if _, err := retention.New(new(echomq.Client), &retention.Config{Policies: ps}); err != nil {
		return nil, err
	}
	return ps, nil
}

const retentionLong = `Trim streams by declared policies: each --policy names a stream (of --queue, or
QUEUE/STREAM) and what it keeps:

  maxlen N     the newest N events
  ago D        the events minted within D of now (90s, 36h, 7d)
  minid T      the events minted at or after the RFC3339 instant T

followed by "exact" for an exact trim; without it the trim is approximate (the
engine removes whole internal nodes only: maybe fewer events, never more).

A stream under archive control (it has an archive watermark, or an archiver
holds it) is refused and not trimmed: only its archiver trims it.`

func (a *app) retentionCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "retention",
		Short: "Trim streams by declared policies, once or on a tick",
		Long:  retentionLong,
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	cmd.AddCommand(a.retentionApplyCommand(), a.retentionRunCommand())
	return cmd
}

// resultRowFormat has fixed-width columns: retention run streams its rows.
// The stream goes last, where a long name cannot push the others.
const resultRowFormat = "%-24s  %-32s  %-26s  %7s  %-7s  %s\n"

func (a *app) writeResultHeader() error {
	_, err := fmt.Fprintf(a.stdout, resultRowFormat, "TIME", "RULE", "TRIM", "REMOVED", "RESULT", "STREAM")
	return err
}

// resultText is the RESULT column: ok, refused (under archive control) or
// failed; the error itself goes to stderr.
func resultText(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, retention.ErrArchived):
		return "refused"
	default:
		return "failed"
	}
}

func (a *app) writeResultRow(d resultDoc, now time.Time) error {
	trim := d.Trim
	if trim == "" {
		trim = "-"
	}
	_, werr := fmt.Fprintf(a.stdout, resultRowFormat, fmtTime(now), d.Rule, trim, strconv.FormatInt(d.Removed, 10), d.Result, d.Queue+"/"+d.Stream)
	return werr
}

func (a *app) retentionApplyCommand() *cobra.Command {
	var specs []string
	cmd := &cobra.Command{
		Use:   "apply --policy SPEC...",
		Short: "Apply retention policies once and print what each removed",
		Long: `Apply each --policy once, in order, and print one row per policy: the trim it
resolved to, how many events it removed and the result (ok, refused: under
archive control, failed). A policy that fails does not stop the others: emq
prints every row, then exits 1 with the failures on one stderr line.`,
		Example: `  emq retention apply --policy "orders maxlen 1000 exact"
  emq retention apply --policy "orders ago 7d" --policy "cm/guesses maxlen 10000"`,
		Args: argsRange(0, 0),
		RunE: body(func(cmd *cobra.Command, _ []string) error {
			ps, err := a.parsePolicies(specs)
			if err != nil {
				return err
			}
			return a.withDriver(cmd.Context(), &retention.Config{Policies: ps}, func(d *retention.Driver) error {
				res, sweepErr := d.Sweep(cmd.Context())
				doc := retentionApplyDoc{Results: make([]resultDoc, len(res.Results)), Removed: res.Trimmed, Failed: res.Failed}
				for i, r := range res.Results {
					doc.Results[i] = toResultDoc(r)
				}
				if a.json {
					if err := writeJSON(a.stdout, doc); err != nil {
						return err
					}
				} else {
					if err := a.writeResultHeader(); err != nil {
						return err
					}
					now := a.opts.Clock()
					for _, r := range doc.Results {
						if err := a.writeResultRow(r, now); err != nil {
							return err
						}
					}
				}
				if sweepErr != nil {
					return fmt.Errorf("%d of %d policies not applied: %w", res.Failed, len(ps), sweepErr)
				}
				return nil
			})
		}),
	}
	cmd.Flags().StringArrayVar(&specs, "policy", nil, `"STREAM RULE" or "QUEUE/STREAM RULE" (repeatable)`)
	return cmd
}

// withDriver connects and runs fn on a retention driver of cfg; the
// driver's warnings (a policy not applied by retention run) go to stderr.
func (a *app) withDriver(ctx context.Context, cfg *retention.Config, fn func(*retention.Driver) error) (err error) {
	c, err := a.connect(ctx, a.stderr)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := c.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	cfg.Logger = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	d, err := retention.New(c, cfg)
	if err != nil {
		return err
	}
	return fn(d)
}
