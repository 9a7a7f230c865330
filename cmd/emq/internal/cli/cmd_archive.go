package cli

import (
	"log/slog"
	"time"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/retention"
)

const archiveLong = `Fold streams into a durable archive before trimming them, and read the archive
and the live tail back as one log.

The store is a local directory (--store, default ./emq-archive, created by
"archive run") or an S3-compatible object store (--s3
http[s]://host[:port]/bucket[/prefix], keys in $EMQ_S3_ACCESS_KEY and
$EMQ_S3_SECRET_KEY). One store holds the archives of many streams of many
queues. A stream under archive control is trimmed by its archiver only;
"emq retention" refuses it.`

func (a *app) archiveCommand() *cobra.Command {
	var so storeOpts
	cmd := &cobra.Command{
		Use:   "archive",
		Short: "Archive streams into a durable store, inspect and read the archive",
		Long:  archiveLong,
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	so.register(cmd.PersistentFlags())
	cmd.AddCommand(a.archiveRunCommand(&so), a.archiveStatusCommand(&so), a.archiveLsCommand(&so), a.archiveReadCommand(&so), a.archiveVerifyCommand(&so))
	return cmd
}

// withArchiver checks the store flags, connects, opens the store and runs
// fn on an archiver of cfg; it closes everything after.
func (a *app) withArchiver(cmd *cobra.Command, so *storeOpts, create bool, cfg *archive.Config,
	fn func(*archive.Archiver) error,
) (err error) {
	ctx := cmd.Context()
	c, err := a.connect(ctx, a.stderr)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := c.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	store, release, err := so.open(ctx, create)
	if err != nil {
		return err
	}
	defer release()
	if cfg == nil {
		cfg = &archive.Config{}
	}
	cfg.Logger = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	arch, err := archive.New(c, store, cfg)
	if err != nil {
		return err
	}
	return fn(arch)
}

const archiveRunLong = `Archive STREAM once: fold the entries its --policy does not keep into the
store as a Parquet segment, commit the manifest, cache the watermark W, then
trim the stream exactly above W. Only archived entries are ever trimmed.

--policy is what the live stream keeps: "maxlen N" (the newest N; "maxlen 0"
archives everything), "ago D" (what was minted within D of now; "7d", "36h")
or "minid T" (what was minted at or after the RFC3339 instant T).

With --every D it keeps archiving, one cycle D after the previous ended,
until interrupted (Ctrl-C: exit 0) or --cycles were run; a failed cycle is
reported on stderr and retried. Each cycle prints one row (with --json one
JSON line). On a terminal, stderr shows a progress bar while a cycle folds.`

func (a *app) archiveRunCommand(so *storeOpts) *cobra.Command {
	var (
		policy string
		every  time.Duration
		cycles int
	)
	cmd := &cobra.Command{
		Use:   "run STREAM --policy RULE",
		Short: "Archive a stream once, or every --every until interrupted",
		Long:  archiveRunLong,
		Example: `  emq archive run orders --policy "maxlen 1000"
  emq archive run orders --policy "ago 7d" --every 1m
  emq archive run orders --policy "maxlen 0" --s3 http://127.0.0.1:7070/archive`,
		Args: argsRange(1, 1),
		RunE: body(func(cmd *cobra.Command, args []string) error {
			if err := a.checkStream(args[0]); err != nil {
				return err
			}
			f := cmd.Flags()
			if !f.Changed("policy") {
				return usagef(`archive run: --policy is required (e.g. --policy "maxlen 1000")`)
			}
			rule, err := retention.ParseRule(policy)
			if err != nil {
				return err
			}
			switch {
			case f.Changed("every") && every < time.Millisecond:
				return usagef("invalid --every %s: must be at least 1ms", every)
			case cycles < 0:
				return usagef("invalid --cycles %d: must not be negative", cycles)
			case f.Changed("cycles") && !f.Changed("every"):
				return usagef("archive run: --cycles needs --every")
			}
			if err := so.check(cmd, a.opts.Getenv); err != nil {
				return err
			}
			p := archive.Policy{Queue: a.queue, Stream: args[0], Keep: rule}
			bar := newProgressBar(a.stderr)
			cfg := &archive.Config{Policies: []archive.Policy{p}, Tick: every, Progress: bar.callback()}
			if every == 0 {
				return a.withArchiver(cmd, so, true, cfg, func(arch *archive.Archiver) error {
					res, err := arch.Cycle(cmd.Context(), p)
					bar.clear()
					if err != nil {
						return err
					}
					if err := a.writeCycleHeader(); err != nil {
						return err
					}
					return a.writeCycle(toCycleDoc(a.queue, res, a.opts.Clock()))
				})
			}
			return a.archiveEvery(cmd, so, cfg, bar, cycles)
		}),
	}
	f := cmd.Flags()
	f.StringVar(&policy, "policy", "", `what the live stream keeps: "maxlen N", "ago D" or "minid T"`)
	f.DurationVar(&every, "every", 0, "keep archiving, one cycle this long after the previous ended")
	f.IntVar(&cycles, "cycles", 0, "with --every: stop after this many cycles (0: run until interrupted)")
	return cmd
}
