package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq/codemojex/sim"
)

// Execute runs the codemojex command line with args (without the program
// name) until ctx ends, and returns the exit code: 0 ok, 1 failure, 2 bad
// command line. With no command it serves.
func Execute(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && args[0] != "-h" && args[0] != "--help" {
		args = append([]string{"serve"}, args...)
	}
	root := &cobra.Command{
		Use:   "codemojex",
		Short: "codemojex: crack the 6-emoji code, a game on EchoMQ streams and lanes",
		Long: "codemojex serves the game's web app, JSON API, Telegram bot and operator pages with its scoring workers, sweep and projections (the default command), plays simulated players against a server, or runs the operator's commands (room, grant, player) on an engine.\n\n" +
			"Serving: codemojex [--addr HOST:PORT] [--url redis://host:port] [--dev-signin=true] — it listens on 127.0.0.1:8080 by default\n" +
			"(--addr or CODEMOJEX_ADDR picks another, e.g. --addr 127.0.0.1:9090); with no --url or EMQ_URL it runs on the embedded\n" +
			"engine, where nothing persists. See codemojex serve --help for every flag.",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.AddCommand(serveCmd(stdout, stderr), simCmd(stdout, stderr), roomCmd(stdout), grantCmd(stdout), playerCmd(stdout))
	if err := root.ExecuteContext(ctx); err != nil {
		fmt.Fprintln(stderr, "codemojex:", message(err))
		var ue usageError
		if errors.As(err, &ue) || strings.Contains(err.Error(), "unknown flag") || strings.Contains(err.Error(), "unknown command") {
			return 2
		}
		return 1
	}
	return 0
}

type usageError struct{ error }

// message is err's text without the package prefixes its wrappers repeat
// ("codemojex: echomq: connect: echomq: transport: …" reads "connect:
// transport: …" after the one "codemojex:" the command prints).
func message(err error) string {
	msg := err.Error()
	for _, p := range []string{"codemojex: ", "echomq: ", "sim: "} {
		msg = strings.ReplaceAll(msg, p, "")
	}
	return msg
}

// auto reads a flag of auto, true or false; auto means embedded.
func auto(flag, v string, embedded bool) (bool, error) {
	switch v {
	case "auto":
		return embedded, nil
	case "true", "false":
		return v == "true", nil
	}
	return false, usageError{fmt.Errorf("%s must be auto, true or false", flag)}
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok {
		return v
	}
	return def
}

func envInt(name string, def int64) int64 {
	if v, err := strconv.ParseInt(os.Getenv(name), 10, 64); err == nil {
		return v
	}
	return def
}

func logger(w io.Writer, level string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, usageError{fmt.Errorf("--log-level: %w", err)}
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: l})), nil
}

func serveCmd(stdout, stderr io.Writer) *cobra.Command {
	var cfg ServeConfig
	var demo, devSignIn, level, tokenFile string
	c := &cobra.Command{
		Use:   "serve",
		Short: "Serve the JSON API, the scoring workers, the sweep and the projections (default)",
		Long: `Serve the JSON API, the scoring workers, the sweep and the projections until SIGINT or SIGTERM.
With no engine URL it runs on the embedded in-process engine and seeds the demo rooms (a 3-minute
quick game first).

Environment: EMQ_URL (engine), CODEMOJEX_ADDR, CODEMOJEX_OPERATOR_TOKEN (or
CODEMOJEX_OPERATOR_TOKEN_FILE; a token is never printed unless generated), CODEMOJEX_SECURE_COOKIES,
CODEMOJEX_STARTER_KEYS, CODEMOJEX_STARTER_CLIPS, CODEMOJEX_PUBLIC_URL.
Sharding: --shards N (or CODEMOJEX_SHARDS) spreads the rooms over N queues, on a cluster URL over its
masters; a player plays the rooms of every shard, with one wallet in their home shard (docs/codemojex.md,
"Sharding").
Telegram: CODEMOJEX_TELEGRAM_BOT_TOKEN runs the bot (and enables the Mini App sign-in), by long
polling; with CODEMOJEX_TELEGRAM_WEBHOOK_SECRET too it takes updates at POST /telegram/webhook
instead, registered with Telegram at start when CODEMOJEX_TELEGRAM_WEBHOOK_URL is set.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := logger(stderr, level)
			if err != nil {
				return err
			}
			if cfg.Demo, err = auto("--demo", demo, cfg.URL == ""); err != nil {
				return err
			}
			if cfg.DevSignIn, err = auto("--dev-signin", devSignIn, cfg.URL == ""); err != nil {
				return err
			}
			if cfg.OperatorToken, err = operatorToken(tokenFile); err != nil {
				return err
			}
			cfg.Logger, cfg.Out, cfg.Notice = log, stdout, stderr
			return Serve(cmd.Context(), &cfg)
		},
	}
	f := c.Flags()
	f.StringVar(&cfg.Addr, "addr", env("CODEMOJEX_ADDR", "127.0.0.1:8080"), "listen address")
	f.StringVar(&cfg.URL, "url", env("EMQ_URL", ""), "engine URL (redis://host:port); empty runs the embedded engine")
	f.StringVar(&cfg.Queue, "queue", "cm", "queue holding the game")
	f.IntVar(&cfg.Shards, "shards", int(envInt("CODEMOJEX_SHARDS", 1)), "shards of the game (1-64): queues of their own, spread over a cluster's masters; recorded on the engine, so every serve of the queue gives the same count")
	// The operator token comes from the environment or a file, never from
	// a flag: a flag's value shows in process listings.
	f.StringVar(&tokenFile, "operator-token-file", env("CODEMOJEX_OPERATOR_TOKEN_FILE", ""), "file holding the operator token (else $CODEMOJEX_OPERATOR_TOKEN; random when neither is set)")
	f.BoolVar(&cfg.SecureCookies, "secure-cookies", envBool("CODEMOJEX_SECURE_COOKIES"), "mark cookies Secure and send HSTS (behind a TLS proxy)")
	f.StringVar(&devSignIn, "dev-signin", env("CODEMOJEX_DEV_SIGNIN", "auto"), "the sign-in by name, which trusts any name (POST /api/auth/dev): auto (on for the embedded engine only), true or false")
	// The bot token comes from the environment only, so it stays out of
	// process listings.
	cfg.TelegramBotToken = env("CODEMOJEX_TELEGRAM_BOT_TOKEN", "")
	cfg.TelegramWebhookSecret = env("CODEMOJEX_TELEGRAM_WEBHOOK_SECRET", "")
	f.StringVar(&cfg.TelegramWebhookURL, "telegram-webhook-url", env("CODEMOJEX_TELEGRAM_WEBHOOK_URL", ""), "public https URL of /telegram/webhook, registered with Telegram at start (webhook mode)")
	f.StringVar(&cfg.TelegramAPI, "telegram-api", env("CODEMOJEX_TELEGRAM_API", ""), "Bot API server (default https://api.telegram.org)")
	f.StringVar(&cfg.PublicURL, "public-url", env("CODEMOJEX_PUBLIC_URL", ""), "the web app's public URL, offered by the bot's /start as a Mini App button")
	f.IntVar(&cfg.Workers, "workers", 256, "guesses scored at once")
	f.DurationVar(&cfg.Sweep, "sweep", time.Second, "how often expired games are closed")
	f.StringVar(&demo, "demo", "auto", "seed the demo rooms (a 3-minute quick game first) into an engine without rooms: auto (embedded engine only), true or false")
	f.Int64Var(&cfg.StarterKeys, "starter-keys", envInt("CODEMOJEX_STARTER_KEYS", 20), "keys granted at a player's first sign-in")
	f.Int64Var(&cfg.StarterClips, "starter-clips", envInt("CODEMOJEX_STARTER_CLIPS", 50), "clips granted at a player's first sign-in")
	f.StringVar(&cfg.SetsDir, "sets", "", "directory of more emoji sets (*.txt set files)")
	f.BoolVar(&cfg.Snapshots, "snapshots", true, "persist the projections' snapshots in the engine")
	f.StringVar(&level, "log-level", "info", "log level: debug, info, warn, error")
	return c
}

func simCmd(stdout, stderr io.Writer) *cobra.Command {
	var cfg sim.Config
	var level string
	var shards int
	var quiet bool
	c := &cobra.Command{
		Use:   "sim",
		Short: "Play simulated players against a server, for demos and load tests",
		Long: `Play N simulated players against a running server (--url), or against a server started in this
process (on EMQ_URL, or the embedded engine) when --url is empty, and print the guesses accepted and
scored per second and the latency from submit to score. Against a sharded server (serve --shards N) it
creates a room in every shard and spreads the players over them; --shards N runs the in-process server
sharded.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			log, err := logger(stderr, level)
			if err != nil {
				return err
			}
			if !quiet {
				cfg.Progress = stdout
			}
			var rep sim.Report
			if cfg.URL != "" {
				if cmd.Flags().Changed("shards") {
					return usageError{errors.New("--shards starts the in-process server sharded: against --url the server's own --shards decides")}
				}
				rep, err = sim.Run(cmd.Context(), &cfg)
			} else {
				rep, err = simInProcess(cmd.Context(), cfg, shards, log)
			}
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, rep)
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&cfg.URL, "url", "", "base URL of a running server; empty starts one in this process")
	f.StringVar(&cfg.OperatorToken, "operator-token", env("CODEMOJEX_OPERATOR_TOKEN", ""), "operator token (to create the room and grant keys)")
	f.IntVar(&cfg.Players, "players", 10, "players playing at once")
	f.IntVar(&cfg.Guesses, "guesses", 20, "guesses per player")
	f.StringVar(&cfg.Room, "room", "", "room to play (a new one when empty)")
	f.StringVar(&cfg.Strategy, "strategy", "climb", "climb (improve the best guess) or random")
	f.BoolVar(&quiet, "quiet", false, "no progress lines")
	f.StringVar(&cfg.EngineURL, "engine-stats", "", "redis://host:port of the server's engine: print its commands per scored guess (INFO commandstats around the guessing); several, comma-separated (a cluster's masters), print each one's share too; with --url empty, EMQ_URL")
	f.StringVar(&level, "log-level", "warn", "log level of an in-process server")
	f.IntVar(&shards, "shards", 1, "shards of the in-process server (with --url empty)")
	return c
}

// simInProcess serves on a free port in this process and plays against it.
func simInProcess(ctx context.Context, cfg sim.Config, shards int, log *slog.Logger) (sim.Report, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan string, 1)
	served := make(chan error, 1)
	token := cfg.OperatorToken
	if token == "" {
		token = "sim-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	go func() {
		served <- Serve(ctx, &ServeConfig{
			Addr: "127.0.0.1:0", URL: os.Getenv("EMQ_URL"), Queue: "cm", OperatorToken: token, Shards: shards,
			DevSignIn: true, Logger: log, Ready: func(u string) { ready <- u },
		})
	}()
	select {
	case err := <-served:
		return sim.Report{}, err
	case u := <-ready:
		cfg.URL, cfg.OperatorToken = u, token
	}
	rep, err := sim.Run(ctx, &cfg)
	cancel()
	if serr := <-served; err == nil {
		err = serr
	}
	return rep, err
}

// operatorToken reads the operator token from file (its first line) or
// else from $CODEMOJEX_OPERATOR_TOKEN; "" lets Serve generate one.
func operatorToken(file string) (string, error) {
	if file == "" {
		return os.Getenv("CODEMOJEX_OPERATOR_TOKEN"), nil
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("operator token file: %w", err)
	}
	tok, _, _ := strings.Cut(string(b), "\n")
	if tok = strings.TrimSpace(tok); tok == "" {
		return "", fmt.Errorf("operator token file %s is empty", file)
	}
	return tok, nil
}

// envBool reads a boolean environment variable; unset or unparsable is
// false.
func envBool(name string) bool {
	v, err := strconv.ParseBool(os.Getenv(name))
	return err == nil && v
}
