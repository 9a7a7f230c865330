package app

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/codemojex"
	"github.com/echomq/echomq/codemojex/api"
	"github.com/echomq/echomq/codemojex/bot"
	"github.com/echomq/echomq/codemojex/health"
	"github.com/echomq/echomq/codemojex/operator"
	"github.com/echomq/echomq/codemojex/rules"
	"github.com/echomq/echomq/codemojex/views"
	"github.com/echomq/echomq/codemojex/web"
	"github.com/echomq/echomq/embedded"
	"github.com/echomq/echomq/lanes"
	"github.com/echomq/echomq/partition"
	emqprom "github.com/echomq/echomq/prometheus"
)

// ServeConfig configures [Serve].
type ServeConfig struct {
	// Addr is the listen address. Defaults to "127.0.0.1:8080".
	Addr string
	// URL is the engine's URL. Defaults to "": the embedded engine
	// (package embedded), with the demo rooms.
	URL string
	// Queue holds the game. Defaults to "cm".
	Queue string
	// Shards spreads the game over that many shards (queues of their own,
	// see codemojex.Shards; at most codemojex.MaxShards), recorded on the
	// engine: a later serve must give the same count. Defaults to 0 or 1:
	// the game on Queue alone, as before shards.
	Shards int
	// OperatorToken guards the operator routes. Defaults to "": a random
	// token is made and printed in the banner (the only time a token is
	// printed: a configured one never is).
	OperatorToken string
	// SecureCookies marks the operator session cookie Secure (and sends
	// Strict-Transport-Security), for a server behind a TLS proxy.
	// Defaults to false: Secure only on a TLS connection.
	SecureCookies bool
	// ReadTimeout bounds reading one request, body included (a body
	// trickled in is cut off); WriteTimeout bounds writing one answer
	// (long-polls wait less; event streams set deadlines per write);
	// IdleTimeout closes idle keep-alive connections. Default to 15s,
	// 60s and 120s.
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// ShutdownGrace is how long a stop waits for requests in flight, and
	// then, separately, for the scoring workers. Defaults to 10s.
	ShutdownGrace time.Duration
	// SignInRate, OperatorSignInRate and GuessRate are the rate limits
	// (429 with Retry-After past them): sign-ins and operator sign-ins per
	// client address, guesses per session. Default to
	// [DefaultSignInRate], [DefaultOperatorSignInRate] and
	// [DefaultGuessRate]; a PerSecond below 0 turns a limit off.
	SignInRate, OperatorSignInRate, GuessRate Rate
	// MaxStreams and MaxStreamsPerClient cap the live feed's event streams
	// (see web.Config). Default to the web package's defaults.
	MaxStreams, MaxStreamsPerClient int
	// DevSignIn enables the sign-in by name.
	DevSignIn bool
	// TelegramBotToken verifies Telegram Mini App sign-ins on the web app
	// and, when set, runs the Telegram bot in long-polling mode.
	// Defaults to "": the Telegram sign-in is off.
	TelegramBotToken string
	// TelegramWebhookSecret, when set with TelegramBotToken, runs the bot
	// in webhook mode: Telegram posts updates to /telegram/webhook with
	// this secret token (others are refused with 401). Defaults to "":
	// long polling.
	TelegramWebhookSecret string
	// TelegramWebhookURL, in webhook mode, is the public https address of
	// /telegram/webhook, registered with Telegram (setWebhook) at start.
	// Defaults to "": the webhook is registered elsewhere.
	TelegramWebhookURL string
	// TelegramAPI is the Bot API server. Defaults to "":
	// https://api.telegram.org (a local telegram-bot-api server goes here).
	TelegramAPI string
	// PublicURL is the web app's public address; /start offers it as a
	// Mini App button. Defaults to "": no button.
	PublicURL string
	// Workers is how many guesses are scored at once (their transactions are shared). Defaults to 256.
	Workers int
	// Sweep is how often expired games are closed. Defaults to 1s.
	Sweep time.Duration
	// Demo seeds the demo rooms ([DemoRooms]) when the engine has no room yet. Defaults
	// to false (the command turns it on for the embedded engine).
	Demo bool
	// StarterKeys and StarterClips are granted at a player's first
	// sign-in.
	StarterKeys, StarterClips int64
	// SetsDir, when set, holds more emoji sets (*.txt set files).
	SetsDir string
	// Snapshots persists the views' snapshots in the engine.
	Snapshots bool
	// Logger defaults to slog.Default().
	Logger *slog.Logger
	// Out receives the banner (the URL and how to play). Defaults to
	// io.Discard.
	Out io.Writer
	// Notice receives the embedded engine's notice that nothing persists.
	// Defaults to os.Stderr.
	Notice io.Writer
	// Ready, when set, is called with the server's base URL once it
	// listens.
	Ready func(url string)
}

// scoreAttempts is how many claims a guess's scoring job gets. An engine
// outage spends attempts (a run that failed, a lease that lapsed while the
// engine was away), and the lanes default of 5 let a few seconds of
// flapping kill jobs, whose guesses were then refunded instead of scored;
// with the worker's backoff (up to 5s) 100 attempts outlast minutes of
// failure. A job that still dies is refunded by the sweep.
const scoreAttempts = 100

// Serve runs codemojex until ctx ends: the JSON API, the scoring workers,
// the sweep, the views and the hub, each in a goroutine it owns and stops.
// The HTTP server stops first (in-flight requests finish), then the
// workers (running jobs finish or go back to their lanes), then the rest.
func Serve(ctx context.Context, config *ServeConfig) error {
	var cfg ServeConfig
	if config != nil {
		cfg = *config
	}
	cfg.Addr = cmp.Or(cfg.Addr, "127.0.0.1:8080")
	cfg.Workers = cmp.Or(cfg.Workers, 256)
	cfg.Sweep = cmp.Or(cfg.Sweep, time.Second)
	cfg.ReadTimeout = cmp.Or(cfg.ReadTimeout, 15*time.Second)
	cfg.WriteTimeout = cmp.Or(cfg.WriteTimeout, 60*time.Second)
	cfg.IdleTimeout = cmp.Or(cfg.IdleTimeout, 120*time.Second)
	cfg.ShutdownGrace = cmp.Or(cfg.ShutdownGrace, 10*time.Second)
	cfg.SignInRate = cmp.Or(cfg.SignInRate, DefaultSignInRate)
	cfg.OperatorSignInRate = cmp.Or(cfg.OperatorSignInRate, DefaultOperatorSignInRate)
	cfg.GuessRate = cmp.Or(cfg.GuessRate, DefaultGuessRate)
	log := cmp.Or(cfg.Logger, slog.Default())
	out := cmp.Or[io.Writer](cfg.Out, io.Discard)
	generated := cfg.OperatorToken == ""
	if generated {
		b := make([]byte, 16)
		_, _ = rand.Read(b)
		cfg.OperatorToken = hex.EncodeToString(b)
	}
	sets, err := loadSets(cfg.SetsDir)
	if err != nil {
		return err
	}
	metrics := emqprom.NewMetrics(nil)
	client, err := echomq.Connect(ctx, &echomq.Config{
		URL: embedded.Or(cfg.URL), Logger: log, ClientName: "codemojex", Notice: cfg.Notice,
		Hooks: []echomq.Hook{metrics},
	})
	if err != nil {
		return err
	}
	defer client.Close()
	ecfg := codemojex.Config{
		Queue: cfg.Queue, Sets: sets, Logger: log,
		StarterKeys: cfg.StarterKeys, StarterClips: cfg.StarterClips, Lanes: &lanes.Config{MaxAttempts: scoreAttempts},
	}
	if err := checkLayout(ctx, client, &ecfg, cfg.Shards); err != nil {
		return err
	}
	var sh *codemojex.Shards
	if cfg.Shards > 1 {
		sh, err = codemojex.NewShards(ctx, client, &ecfg, cfg.Shards)
	} else {
		var eng *codemojex.Engine
		if eng, err = codemojex.New(client, &ecfg); err == nil {
			sh = codemojex.Single(eng)
		}
	}
	if err != nil {
		return err
	}
	vs, err := views.NewSharded(sh, &views.Config{Snapshots: cfg.Snapshots, Logger: log})
	if err != nil {
		return err
	}
	hub := views.NewShardedHub(sh, time.Second)
	// One scoring worker per shard, each serving its shard's guess lanes.
	workers, err := sh.Workers(&lanes.WorkerConfig{
		Concurrency: cfg.Workers, Lease: 10 * time.Second,
		Backoff: lanes.Jitter(lanes.Exponential(50*time.Millisecond, 5*time.Second)), Logger: log,
	})
	if err != nil {
		return err
	}
	var rooms []codemojex.Room
	if cfg.Demo {
		if rooms, err = seedDemo(ctx, sh); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return listenError(cfg.Addr, err)
	}
	base := "http://" + ln.Addr().String()
	// The API answers /api/; the web app (pages, live feed, Telegram
	// sign-in) answers the rest.
	mux := http.NewServeMux()
	apiSrv := api.NewSharded(sh, vs, hub, &api.Config{OperatorToken: cfg.OperatorToken, DevSignIn: cfg.DevSignIn, Logger: log})
	mux.Handle("/api/", apiSrv)
	// The game's health, for /metrics and the operator pages; the live
	// feeds are the web app's, made below.
	var webApp *web.Handler
	monitor, err := health.NewSharded(sh, &health.Config{LiveFeeds: func() int { return webApp.LiveFeeds() }})
	if err != nil {
		ln.Close()
		return err
	}
	ops, err := operator.NewSharded(sh, &operator.Config{OperatorToken: cfg.OperatorToken, SecureCookies: cfg.SecureCookies, Logger: log, Health: monitor})
	if err != nil {
		ln.Close()
		return err
	}
	mux.Handle("/op/", ops) // the operator pages
	metricsH, err := metricsHandler(sh, metrics, monitor, cfg.OperatorToken)
	if err != nil {
		ln.Close()
		return err
	}
	mux.Handle("/metrics", metricsH)
	webApp = web.NewSharded(sh, hub, &web.Config{
		BotToken: cfg.TelegramBotToken, DevSignIn: cfg.DevSignIn, Logger: log, Views: vs,
		MaxStreams: cfg.MaxStreams, MaxStreamsPerClient: cfg.MaxStreamsPerClient,
	})
	mux.Handle("/", webApp)
	var tg *bot.Bot
	if cfg.TelegramBotToken != "" {
		// The Telegram bot, on the same engine.
		tg, err = bot.NewSharded(sh, &bot.Config{
			Token: cfg.TelegramBotToken, ServerURL: cfg.TelegramAPI, WebhookSecret: cfg.TelegramWebhookSecret,
			WebAppURL: cfg.PublicURL, Views: vs, Logger: log,
		})
		if err == nil && cfg.TelegramWebhookSecret != "" {
			mux.Handle("POST /telegram/webhook", tg.Webhook())
			if cfg.TelegramWebhookURL != "" {
				err = tg.SetWebhook(ctx, cfg.TelegramWebhookURL)
			}
		}
		if err != nil {
			ln.Close()
			return err
		}
	}
	srv := &http.Server{
		Handler:           newHarden(mux, cfg),
		ReadHeaderTimeout: min(10*time.Second, cfg.ReadTimeout),
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	// At shutdown, live feeds and long-polls answer at once, so Shutdown
	// finishes as soon as their answers are written.
	srv.RegisterOnShutdown(webApp.Close)
	srv.RegisterOnShutdown(apiSrv.Close)

	// Background parts stop after the HTTP server and the worker.
	bg, stopBG := context.WithCancelCause(context.WithoutCancel(ctx))
	defer stopBG(nil)
	var bgWG sync.WaitGroup
	runners := map[string]func(context.Context) error{
		"views": vs.Run, "hub": hub.Run,
		"sweep": func(ctx context.Context) error { return sh.RunSweep(ctx, cfg.Sweep) },
	}
	if tg != nil {
		if cfg.TelegramWebhookSecret == "" {
			runners["bot"] = tg.Run // long polling, and the outbox and notifications
		} else {
			runners["bot"] = tg.Serve // updates arrive at /telegram/webhook
		}
	}
	// Each part rides out engine faults (supervise runs it again); only a
	// permanent failure stops serve.
	failed := make(chan error, len(runners))
	for name, run := range runners {
		bgWG.Go(func() {
			if err := supervise(bg, log, name, run); err != nil {
				failed <- err
			}
		})
	}
	wctx, stopWorker := context.WithCancel(context.WithoutCancel(ctx))
	defer stopWorker()
	for i, w := range workers {
		if err := w.Start(wctx); err != nil {
			for _, started := range workers[:i] {
				_ = started.Stop(context.WithoutCancel(ctx))
			}
			stopBG(nil)
			bgWG.Wait()
			return err
		}
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	banner(out, base, client.Engine().Name == "embedded", cfg, rooms, generated)
	if cfg.Ready != nil {
		cfg.Ready(base)
	}
	var runErr error
	select {
	case <-ctx.Done():
	case runErr = <-failed:
	case runErr = <-served:
	}
	log.Info("codemojex: stopping")
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		runErr = cmp.Or(runErr, err)
	}
	// The workers get a full grace of their own, whatever the HTTP
	// shutdown took: a running job finishes or goes back to its lane.
	wsctx, wcancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer wcancel()
	for _, w := range workers {
		if err := w.Stop(wsctx); err != nil {
			runErr = cmp.Or(runErr, err)
		}
	}
	stopBG(nil)
	bgWG.Wait()
	if errors.Is(runErr, http.ErrServerClosed) {
		runErr = nil
	}
	return runErr
}

func loadSets(dir string) ([]*rules.Set, error) {
	if dir == "" {
		return nil, nil
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	var sets []*rules.Set
	for _, name := range files {
		f, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		s, err := rules.LoadSet(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		sets = append(sets, s)
	}
	return sets, nil
}

// DemoRooms are the rooms [Serve] seeds with ServeConfig.Demo: a quick
// game of three minutes first, so a newcomer reaches an end screen (the
// timer's, if nobody cracks it) within minutes, then a paid room of
// one-hour games and a free one of 15 minutes.
func DemoRooms() []codemojex.RoomSpec {
	return []codemojex.RoomSpec{
		{Name: "Quick game (3 min)", Set: "animals", Mode: rules.Classic, Duration: 3 * time.Minute, Prize: 50, Fee: 1, Free: true, Cells: 12},
		{Name: "Animal Farm", Set: "animals", Mode: rules.Classic, Duration: time.Hour, Prize: 1000, Fee: 1},
		{Name: "Snack Bar (free)", Set: "food", Mode: rules.Classic, Duration: 15 * time.Minute, Prize: 100, Fee: 1, Free: true, Cells: 24},
	}
}

// seedDemo creates the demo rooms when the engine has no room yet, and
// returns the rooms there are. A sharded game gets them in every shard, so
// every shard takes a share of the play.
func seedDemo(ctx context.Context, s *codemojex.Shards) ([]codemojex.Room, error) {
	rooms, err := s.Rooms(ctx)
	if err != nil || len(rooms) > 0 {
		return rooms, err
	}
	for k := range s.Len() {
		for _, spec := range DemoRooms() {
			var r codemojex.Room
			if s.Len() == 1 {
				r, err = s.CreateRoom(ctx, spec)
			} else {
				r, err = s.CreateRoomIn(ctx, spec, k)
			}
			if err != nil {
				return nil, err
			}
			rooms = append(rooms, r)
		}
	}
	return rooms, nil
}

// checkLayout refuses to serve a queue in another layout than its game's:
// a sharded game on a queue that holds a game of one shard (its rooms would
// be out of sight, in the base queue), or one shard on a queue whose game
// is recorded sharded. Moving a game between layouts is not supported.
func checkLayout(ctx context.Context, client *echomq.Client, ecfg *codemojex.Config, shards int) error {
	base := cmp.Or(ecfg.Queue, "cm")
	if shards > 1 {
		one, err := codemojex.New(client, ecfg)
		if err != nil {
			return err
		}
		rooms, err := one.Rooms(ctx)
		if err != nil {
			return err
		}
		if len(rooms) > 0 {
			return fmt.Errorf("queue %q holds a game of one shard (rooms: %d): a sharded game needs a queue of its own (--queue); a game does not move between layouts", base, len(rooms))
		}
		return nil
	}
	rec, err := partition.Open(ctx, client, base, codemojex.ShardsStream)
	if errors.Is(err, partition.ErrNotPartitioned) {
		return nil
	}
	if err != nil {
		return err
	}
	if n := rec.Counts(); len(n) > 0 && n[len(n)-1] > 1 {
		return fmt.Errorf("queue %q holds a game of %d shards: serve it with --shards %d", base, n[len(n)-1], n[len(n)-1])
	}
	return nil
}

// listenError is a listen failure that says what to do: a taken address
// names --addr (emq ui and other servers like 8080 too).
func listenError(addr string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return fmt.Errorf("listen on %s: the address is already in use (another codemojex, emq ui or another server): "+
			"pick another with --addr HOST:PORT (or CODEMOJEX_ADDR), e.g. --addr 127.0.0.1:9090", addr)
	}
	return fmt.Errorf("listen on %s: %w (--addr HOST:PORT or CODEMOJEX_ADDR picks the address)", addr, err)
}

func banner(w io.Writer, base string, embedded bool, cfg ServeConfig, rooms []codemojex.Room, generated bool) {
	fmt.Fprintf(w, "codemojex is serving on %s (web app at %s/)\n", base, base)
	fmt.Fprintln(w, "address: --addr HOST:PORT (or CODEMOJEX_ADDR) picks another, e.g. --addr 127.0.0.1:9090 or --addr :8080 for every interface")
	if embedded {
		// The notice that nothing persists goes to stderr, with the
		// engine's own; the banner only names the engine.
		fmt.Fprintln(w, "engine: embedded, in this process (see the notice on stderr); EMQ_URL=redis://host:port runs on a real Valkey/Redis")
	} else {
		fmt.Fprintln(w, "engine: "+redactURL(cfg.URL))
	}
	if cfg.Shards > 1 {
		fmt.Fprintf(w, "shards: %d (queues %s.emq-p<i>of<N>-…, a player plays every shard's rooms with one wallet)\n", cfg.Shards, cmp.Or(cfg.Queue, "cm"))
	}
	switch {
	case cfg.DevSignIn && cfg.TelegramBotToken != "":
		fmt.Fprintln(w, "sign-in: on, by name (dev sign-in, trusts any name) and from Telegram (the bot and its Mini App)")
	case cfg.DevSignIn:
		fmt.Fprintln(w, "sign-in: on, by name (dev sign-in, which trusts any name: for development and demos); Telegram sign-in is off (set CODEMOJEX_TELEGRAM_BOT_TOKEN)")
	case cfg.TelegramBotToken != "":
		fmt.Fprintln(w, "sign-in: on, from Telegram only (open the web app from the bot); --dev-signin=true adds the sign-in by name")
	default:
		fmt.Fprintln(w, "sign-in: OFF, nobody can sign in: set CODEMOJEX_TELEGRAM_BOT_TOKEN to sign in from Telegram, or pass --dev-signin=true (or CODEMOJEX_DEV_SIGNIN=true) to sign in by name")
	}
	for _, r := range rooms {
		note := map[bool]string{true: ", free"}[r.Free]
		if r.DurationMS <= (10 * time.Minute).Milliseconds() {
			note += ": the quickest way to see a game end"
		}
		fmt.Fprintf(w, "room: %s, %s games%s\n", r.Name, minutes(time.Duration(r.DurationMS)*time.Millisecond), note)
	}
	tok := "the configured one (not shown)"
	if generated {
		tok = cfg.OperatorToken + " (generated for this run; set CODEMOJEX_OPERATOR_TOKEN or --operator-token-file to choose one)"
	}
	fmt.Fprintf(w, "operator token: %s\n", tok)
	fmt.Fprintf(w, "operator pages: %s/op/ (sign in with the operator token)\n", base)
	if !cfg.DevSignIn {
		return
	}
	simToken := "…" // a configured token is never printed
	if generated {
		simToken = cfg.OperatorToken
	}
	if len(rooms) == 0 {
		fmt.Fprintf(w, "\nNo room yet: create one at %s/op/rooms, or\n"+
			"  curl -s -X POST -H \"Authorization: Bearer $OP\" %s/api/op/rooms -d '{\"name\":\"Den\",\"set\":\"animals\",\"prize\":100}'\n", base, base)
	}
	// Every line works as printed (with jq): the room, the game, the
	// keyboard and the guess come from the answers before.
	fmt.Fprintf(w, `
Play with curl (needs jq):
  B=%[1]s
  T=$(curl -s -X POST $B/api/auth/dev -d '{"name":"alice"}' | jq -r .token)
  R=$(curl -s $B/api/rooms | jq -r '.rooms[0].room')
  G=$(curl -s -X POST -H "Authorization: Bearer $T" $B/api/rooms/$R/join | jq -r .game)
  curl -s $B/api/games/$G | jq -c '.game.cells[]'          # the keyboard: codes and emoji
  S=$(curl -s -X POST -H "Authorization: Bearer $T" $B/api/games/$G/guess \
       -d "$(curl -s $B/api/games/$G | jq -c '{codes: .game.keyboard[:6]}')" | jq -r .receipt.guess)
  curl -s -H "Authorization: Bearer $T" "$B/api/guesses/$S?wait=5s" | jq .guess   # your points
  curl -s $B/api/games/$G/leaderboard | jq
Or let simulated players play (an installed codemojex, or go run from a clone of the repository):
  CODEMOJEX_OPERATOR_TOKEN=%[2]s codemojex sim --url $B --players 50
  CODEMOJEX_OPERATOR_TOKEN=%[2]s go run ./codemojex/cmd/codemojex sim --url $B --players 50
`, base, simToken)
}

// minutes writes a game's duration as a person says it: "3-minute",
// "1-hour", "90-minute", "1h30m".
func minutes(d time.Duration) string {
	switch {
	case d%time.Hour == 0 && d < 48*time.Hour:
		return fmt.Sprintf("%d-hour", d/time.Hour)
	case d%time.Minute == 0 && d < 3*time.Hour:
		return fmt.Sprintf("%d-minute", d/time.Minute)
	}
	return d.String()
}

// redactURL hides the password of an engine URL.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}
