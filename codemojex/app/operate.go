package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/rules"
)

// The operator's commands act on the engine directly, with the engine's
// own checks, like the operator pages (/op/) and routes (/api/op/) of a
// running server. Each prints one line per result; a bad command line is
// refused (exit 2) before anything is written.

// engineFlags are the flags that name the engine and the queue.
type engineFlags struct {
	url, queue, sets string
}

func (f *engineFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.url, "url", env("EMQ_URL", ""), "engine URL (redis://host:port) of the running game; required")
	fs.StringVar(&f.queue, "queue", "cm", "queue holding the game")
}

// open connects to the engine. An empty URL is a usage error: the
// embedded engine of another process cannot be reached from this one.
func (f *engineFlags) open(ctx context.Context, run func(*codemojex.Engine) error) error {
	if f.url == "" {
		return usageError{errors.New("--url or EMQ_URL is required: the embedded engine lives inside its server process, " +
			"so operate that server at its operator pages (http://ADDR/op/) instead")}
	}
	sets, err := loadSets(f.sets)
	if err != nil {
		return usageError{fmt.Errorf("--sets: %w", err)}
	}
	discard := slog.New(slog.DiscardHandler)
	client, err := echomq.Connect(ctx, &echomq.Config{URL: f.url, ClientName: "codemojex-operate", Logger: discard, Notice: io.Discard})
	if err != nil {
		return err
	}
	defer client.Close()
	e, err := codemojex.New(client, &codemojex.Config{Queue: f.queue, Sets: sets, Logger: discard})
	if err != nil {
		return usageError{fmt.Errorf("--queue: %w", err)}
	}
	return refused(run(e))
}

// refused strips the package prefixes off an engine refusal; a bad
// argument is a usage error (exit 2), anything else a failure (exit 1).
func refused(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	for _, p := range []string{"codemojex: ", "echomq: ", "rules: "} {
		msg = strings.ReplaceAll(msg, p, "")
	}
	if errors.Is(err, echomq.ErrInvalidArgument) {
		return usageError{&cleanError{msg, err}}
	}
	return &cleanError{msg, err}
}

type cleanError struct {
	msg string
	err error
}

func (e *cleanError) Error() string { return e.msg }
func (e *cleanError) Unwrap() error { return e.err }

// oneID is the positional argument of a command: one id of a brand.
func oneID(name, brand string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usageError{fmt.Errorf("%s takes one %s, got %d arguments", cmd.CommandPath(), name, len(args))}
		}
		if id, err := echomq.ParseID(args[0]); err != nil || id.Brand() != brand {
			return usageError{fmt.Errorf("%s %q is not a %s id (%s…)", name, args[0], strings.ToLower(name), brand)}
		}
		return nil
	}
}

// onePlayer is the positional argument of a command on a player: one
// player id, or a player's name.
func onePlayer(cmd *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usageError{fmt.Errorf("%s takes one PLAYER (an id or a name), got %d arguments", cmd.CommandPath(), len(args))}
	}
	if strings.HasPrefix(args[0], codemojex.BrandPlayer) {
		return oneID("PLAYER", codemojex.BrandPlayer)(cmd, args)
	}
	return nil
}

// flagUsage makes every flag error of a command and its children a usage
// error (exit 2).
func flagUsage(c *cobra.Command) *cobra.Command {
	c.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	return c
}

// group is a command that only holds commands: run alone it is a usage
// error naming them (cobra would print its help and succeed).
func group(c *cobra.Command, subs ...*cobra.Command) *cobra.Command {
	c.AddCommand(subs...)
	names := make([]string, len(subs))
	for i, s := range subs {
		names[i] = s.Name()
	}
	c.Args = cobra.NoArgs
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		return usageError{fmt.Errorf("%s needs a command: %s", cmd.CommandPath(), strings.Join(names, ", "))}
	}
	return flagUsage(c)
}

// roomCmd is "codemojex room create|list|close".
func roomCmd(stdout io.Writer) *cobra.Command {
	var ef engineFlags
	c := group(&cobra.Command{Use: "room", Short: "Create, list and close rooms on the engine at --url"},
		roomCreateCmd(stdout, &ef), roomListCmd(stdout, &ef), roomCloseCmd(stdout, &ef))
	ef.bind(c.PersistentFlags())
	return c
}

func roomCreateCmd(stdout io.Writer, ef *engineFlags) *cobra.Command {
	var spec codemojex.RoomSpec
	var mode string
	c := &cobra.Command{
		Use:   "create --name NAME [flags]",
		Short: "Create a room and print it",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if strings.TrimSpace(spec.Name) == "" {
				return usageError{errors.New("--name is required")}
			}
			m, err := rules.ParseMode(mode)
			if err != nil {
				return usageError{fmt.Errorf("--mode %q is not classic or blind", mode)}
			}
			if spec.Duration < time.Second {
				return usageError{fmt.Errorf("--duration %s is too short: a game runs 1s to 720h (such as 3m or 1h)", spec.Duration)}
			}
			spec.Mode = m
			return ef.open(cmd.Context(), func(e *codemojex.Engine) error {
				r, err := e.CreateRoom(cmd.Context(), spec)
				if err != nil {
					return err
				}
				fmt.Fprintln(stdout, roomLine(r))
				return nil
			})
		},
	}
	f := c.Flags()
	f.StringVar(&spec.Name, "name", "", "name shown in the lobby (1 to 64 characters); required")
	f.StringVar(&spec.Set, "set", "animals", "emoji set")
	f.StringVar(&mode, "mode", string(rules.Classic), "classic or blind")
	f.DurationVar(&spec.Duration, "duration", 24*time.Hour, "how long each game runs from its first join (1s to 720h)")
	f.Int64Var(&spec.Prize, "prize", 0, "diamonds each game pays its winners")
	f.Int64Var(&spec.Fee, "fee", 1, "price of a guess (1 to 1000), in keys, or clips in a free room")
	f.BoolVar(&spec.Free, "free", false, "a free room: guesses cost clips")
	f.IntVar(&spec.Cells, "cells", 0, "cells of the set each game plays (0: the whole set)")
	f.StringVar(&ef.sets, "sets", "", "directory of the server's extra emoji sets (*.txt set files)")
	return c
}

func roomListCmd(stdout io.Writer, ef *engineFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "Print every room, oldest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return ef.open(cmd.Context(), func(e *codemojex.Engine) error {
				rooms, err := e.Rooms(cmd.Context())
				if err != nil {
					return err
				}
				for _, r := range rooms {
					fmt.Fprintln(stdout, roomLine(r))
				}
				return nil
			})
		},
	}
}

func roomCloseCmd(stdout io.Writer, ef *engineFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "close GAME",
		Short: "Close a running game now, settle it and print the settlement",
		Args:  oneID("GAME", codemojex.BrandGame),
		RunE: func(cmd *cobra.Command, args []string) error {
			return ef.open(cmd.Context(), func(e *codemojex.Engine) error {
				st, err := e.Close(cmd.Context(), args[0], codemojex.ReasonOperator)
				if err != nil {
					return err
				}
				winners := make([]string, 0, len(st.Payouts))
				for _, p := range st.Payouts {
					winners = append(winners, p.Player+":"+strconv.FormatInt(p.Amount, 10))
				}
				fmt.Fprintf(stdout, "%s closed reason=%s prize=%d paid=%d players=%d guesses=%d winners=%s\n",
					st.Game, st.Reason, st.Prize, st.Paid, st.Players, st.Guesses, cmp.Or(strings.Join(winners, ","), "-"))
				return nil
			})
		},
	}
}

// grantCmd is "codemojex grant PLAYER --currency C --amount N".
func grantCmd(stdout io.Writer) *cobra.Command {
	var ef engineFlags
	var currency string
	var amount int64
	c := flagUsage(&cobra.Command{
		Use:   "grant PLAYER --amount N [--currency keys|clips|diamonds] [flags]",
		Short: "Grant a balance to a player (an id or a name) and print their wallet",
		Args:  onePlayer,
		RunE: func(cmd *cobra.Command, args []string) error {
			cur, err := codemojex.ParseCurrency(currency)
			if err != nil {
				return usageError{fmt.Errorf("--currency %q is not keys, clips or diamonds", currency)}
			}
			if amount < 1 || amount > codemojex.MaxAmount {
				return usageError{fmt.Errorf("--amount must be 1..%d", codemojex.MaxAmount)}
			}
			return ef.open(cmd.Context(), func(e *codemojex.Engine) error {
				p, err := e.PlayerByName(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				w, err := e.Grant(cmd.Context(), p.ID, cur, amount)
				if err != nil {
					return err
				}
				unit := string(cur)
				if amount == 1 {
					unit = strings.TrimSuffix(unit, "s")
				}
				fmt.Fprintf(stdout, "%s granted %d %s: %s\n", p.ID, amount, unit, walletText(w))
				return nil
			})
		},
	})
	ef.bind(c.Flags())
	c.Flags().StringVar(&currency, "currency", string(codemojex.Keys), "keys, clips or diamonds")
	c.Flags().Int64Var(&amount, "amount", 0, "how much (1 to 1000000000); required")
	return c
}

// playerCmd is "codemojex player show PLAYER".
func playerCmd(stdout io.Writer) *cobra.Command {
	var ef engineFlags
	c := group(&cobra.Command{Use: "player", Short: "Show a player on the engine at --url"}, &cobra.Command{
		Use:   "show PLAYER",
		Short: "Print a player's name and wallet (PLAYER is an id or a name)",
		Args:  onePlayer,
		RunE: func(cmd *cobra.Command, args []string) error {
			return ef.open(cmd.Context(), func(e *codemojex.Engine) error {
				p, err := e.PlayerByName(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				w, err := e.Wallet(cmd.Context(), p.ID)
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "%s name=%s %s\n", p.ID, strconv.Quote(p.Name), walletText(w))
				return nil
			})
		},
	})
	ef.bind(c.PersistentFlags())
	return c
}

// roomLine is a room on one line, its fields as key=value.
func roomLine(r codemojex.Room) string {
	return fmt.Sprintf("%s name=%s set=%s mode=%s duration=%s fee=%d currency=%s prize=%d cells=%d status=%s game=%s games=%d",
		r.ID, strconv.Quote(r.Name), r.Set, r.Mode, time.Duration(r.DurationMS)*time.Millisecond, r.Fee, r.Currency(), r.Prize,
		r.Cells, r.Status, cmp.Or(r.Game, "-"), r.Games)
}

func walletText(w codemojex.Wallet) string {
	return fmt.Sprintf("keys=%d clips=%d diamonds=%d", w.Keys, w.Clips, w.Diamonds)
}
