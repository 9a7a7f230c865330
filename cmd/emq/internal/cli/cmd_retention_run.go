package cli

import (
	"context"
	"time"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq/retention"
)

func (a *app) retentionRunCommand() *cobra.Command {
	var (
		specs  []string
		tick   time.Duration
		sweeps int
	)
	cmd := &cobra.Command{
		Use:   "run --policy SPEC...",
		Short: "Apply retention policies on a tick until interrupted",
		Long: `Run the retention driver: apply every --policy at once, then again --tick after
each sweep ended, until interrupted (Ctrl-C: exit 0) or --sweeps sweeps ran.
Each policy that removed something or failed prints one row (with --json one
JSON line); why it failed is logged on stderr. A stream under archive control
refuses the start (exit 1, nothing printed).`,
		Example: `  emq retention run --policy "orders ago 7d exact" --tick 1m
  emq retention run --policy "orders maxlen 1000" --sweeps 1`,
		Args: argsRange(0, 0),
		RunE: body(func(cmd *cobra.Command, _ []string) error {
			switch {
			case cmd.Flags().Changed("tick") && tick < time.Millisecond:
				return usagef("invalid --tick %s: must be at least 1ms", tick)
			case sweeps < 0:
				return usagef("invalid --sweeps %d: must not be negative", sweeps)
			}
			ps, err := a.parsePolicies(specs)
			if err != nil {
				return err
			}
			return a.runDriver(cmd.Context(), ps, tick, sweeps)
		}),
	}
	cmd.Flags().StringArrayVar(&specs, "policy", nil, `"STREAM RULE" or "QUEUE/STREAM RULE" (repeatable)`)
	cmd.Flags().DurationVar(&tick, "tick", time.Second, "delay between the end of one sweep and the next")
	cmd.Flags().IntVar(&sweeps, "sweeps", 0, "stop after this many sweeps (0: run until interrupted)")
	return cmd
}

// runDriver runs the driver until ctx ends or it has run the given number
// of sweeps (0: no limit).
func (a *app) runDriver(ctx context.Context, ps []retention.Policy, tick time.Duration, sweeps int) error {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	var printErr error // written by the driver's goroutine, read after Stop
	n := 0
	cfg := &retention.Config{Policies: ps, Tick: tick, OnSweep: func(res retention.SweepResult) {
		n++
		now := a.opts.Clock()
		if n == 1 && !a.json {
			// Printed after the first sweep, not before Start: a refused
			// start leaves stdout empty.
			printErr = a.writeResultHeader()
		}
		for _, r := range res.Results {
			if r.Trimmed == 0 && r.Err == nil || printErr != nil {
				continue
			}
			d := toResultDoc(r)
			if a.json {
				d.Time, d.Sweep = fmtTime(now), n
				printErr = writeJSON(a.stdout, d)
			} else {
				printErr = a.writeResultRow(d, now)
			}
		}
		if printErr != nil || sweeps > 0 && n >= sweeps {
			stop()
		}
	}}
	return a.withDriver(ctx, cfg, func(d *retention.Driver) error {
		if err := d.Start(ctx); err != nil {
			return err
		}
		<-ctx.Done()
		if err := d.Stop(context.Background()); err != nil {
			return err
		}
		return printErr
	})
}
