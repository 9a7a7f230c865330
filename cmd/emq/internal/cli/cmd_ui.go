package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
	"github.com/echomq/echomq/archive"
	"github.com/echomq/echomq/dashboard"
)

// uiOpts are the flags of ui.
type uiOpts struct {
	addr, token, prefix string
	readOnly, lanes     bool
	fixed               bool
	streams, projs      []string
	policies            []string
	store               storeOpts
}

// defaultUIAddr is where ui listens without --addr: loopback only, and not
// codemojex's 127.0.0.1:8080, so the game and the dashboard run side by side.
const defaultUIAddr = "127.0.0.1:7070"

// uiShutdownGrace bounds how long ui waits for requests in flight when it
// is interrupted.
const uiShutdownGrace = 5 * time.Second

const uiLong = `Serve the web dashboard of --queue and Prometheus metrics at /metrics.

It opens on an overview of the queue: its streams (length, rate, last event,
groups, dead letters) with totals, and its lanes. Each stream has a page (first
and last events, memory, a time-window browser), its consumer groups (consumers,
pending, lag, idle, the oldest pending entries) and dead letters (inspect,
replay, replay all, purge). There are pages for the lanes, the archive (--store
DIR or --s3 URL: the stream browser then reads archive and live tail as one
log) and the checkpoints of live projections (--projection). It updates live;
while the engine is unreachable every page says so and retries by itself.

With a token (--token, or $EMQ_UI_TOKEN: at least 16 bytes; prefer the
variable, a flag shows in the process list) every page needs a sign-in with
it, reads as well as writes (replay and purge dead letters, retry dead jobs,
pause and resume lanes). Without a token the pages are open to anyone who
reaches the address and nothing can be written; --read-only turns writes off
even with a token. Every write is a POST with a CSRF token. /metrics needs
no sign-in.

The dashboard finds the queue's streams itself (a SCAN of the queue's keys on
the node that holds them, at every overview; /metrics does the same at every
scrape) and shows the lanes when the queue has any. --stream pins streams to
show first, even before they exist; --fixed shows only the --stream streams
and the lanes only with --lanes (no SCAN: for a node with millions of keys).

It prints where it listens and whether writes are on, and serves until
interrupted (Ctrl-C: exit 0). The default address, 127.0.0.1:7070, is
loopback only and differs from codemojex's 127.0.0.1:8080, so both can run
side by side.`

func (a *app) uiCommand() *cobra.Command {
	var o uiOpts
	cmd := &cobra.Command{
		Use:   "ui",
		Short: "Serve the web dashboard and /metrics",
		Long:  uiLong,
		Example: `  EMQ_UI_TOKEN=$(openssl rand -hex 16) emq ui -q cm
  emq ui -q cm --stream guess-scored --stream room-opened --lanes
  emq ui -q cm --read-only --addr 127.0.0.1:9090
  emq ui -q cm --store ./emq-archive --policy "guess-scored maxlen 10000"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.uiConfig(cmd, &o)
			if err != nil {
				return err
			}
			if err := a.withClient(cmd.Context(), func(c *echomq.Client) error { return a.serveUI(cmd.Context(), cmd, c, &o, cfg) }); err != nil {
				return &runError{err: err}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.addr, "addr", defaultUIAddr, "address to listen on (host:port; :0 picks a free port)")
	f.StringVar(&o.token, "token", "", "sign-in token of every page and write (default $EMQ_UI_TOKEN; none: open pages, no writes)")
	f.BoolVar(&o.readOnly, "read-only", false, "serve no write at all, even to a signed-in operator")
	f.StringArrayVar(&o.streams, "stream", nil, "a stream of --queue to show first, even before it exists (repeat for more)")
	f.StringArrayVar(&o.projs, "projection", nil, "a live projection of --queue whose checkpoint to show (repeat for more)")
	f.BoolVar(&o.lanes, "lanes", false, "always show the lanes job queue of --queue (default: when it has any)")
	f.BoolVar(&o.fixed, "fixed", false, "show only the --stream streams (and the lanes only with --lanes): no discovery")
	f.StringArrayVar(&o.policies, "policy", nil, `archive policy "STREAM RULE" ("orders maxlen 1000"), for the archive lag (repeat for more)`)
	f.StringVar(&o.prefix, "prefix", "", `serve the dashboard under this path ("/ops"); /metrics stays at the root`)
	o.store.register(f)
	// The archive is on only when --store or --s3 is given: no default to show.
	st := f.Lookup("store")
	st.DefValue, st.Usage = "", "archive directory (a local store); the archive pages are on only with --store or --s3"
	return cmd
}

// uiConfig checks the flags, before any I/O, into the dashboard's config
// (without the client and the store).
func (a *app) uiConfig(cmd *cobra.Command, o *uiOpts) (dashboard.Config, error) {
	cfg := dashboard.Config{ReadOnly: o.readOnly, Prefix: o.prefix}
	if !cmd.Flags().Changed("token") {
		o.token = a.opts.Getenv("EMQ_UI_TOKEN")
	}
	if o.token != "" && len(o.token) < dashboard.MinTokenLen {
		return cfg, usagef("invalid token: must be at least %d bytes", dashboard.MinTokenLen) // not echoed
	}
	cfg.Token = o.token
	if o.prefix != "" && (!strings.HasPrefix(o.prefix, "/") || strings.HasSuffix(o.prefix, "/") || o.prefix == "/metrics") {
		return cfg, usagef(`invalid --prefix %q: want a path like "/ops" (not "/metrics", no trailing "/")`, o.prefix)
	}
	if _, _, err := net.SplitHostPort(o.addr); err != nil {
		return cfg, usagef("invalid --addr %q: want host:port", o.addr)
	}
	q := dashboard.Queue{Name: a.queue, Lanes: o.lanes, Fixed: o.fixed}
	for _, s := range o.streams {
		if err := a.checkStream(s); err != nil {
			return cfg, usagef("invalid --stream: %v", err)
		}
		q.Streams = append(q.Streams, s)
	}
	for _, p := range o.projs {
		if err := a.checkStream(p); err != nil {
			return cfg, usagef("invalid --projection: %v", err)
		}
		q.Projections = append(q.Projections, p)
	}
	if err := a.checkStream("x"); err != nil {
		return cfg, usagef("invalid --queue: %v", err)
	}
	cfg.Queues = []dashboard.Queue{q}
	archived := cmd.Flags().Changed("store") || cmd.Flags().Changed("s3")
	if o.fixed && len(o.streams) == 0 && !o.lanes && !archived {
		return cfg, usagef("--fixed shows only what is named: give --stream (or --lanes, --store)")
	}
	if len(o.policies) > 0 && !archived {
		return cfg, usagef("--policy needs an archive: --store DIR or --s3 URL")
	}
	if archived {
		if err := o.store.check(cmd, a.opts.Getenv); err != nil {
			return cfg, err
		}
	}
	for _, s := range o.policies {
		p, err := archive.ParsePolicy(a.queue + "/" + strings.TrimSpace(s))
		if err != nil {
			return cfg, usagef("invalid --policy %q: %v", s, err)
		}
		cfg.ArchivePolicies = append(cfg.ArchivePolicies, p)
	}
	return cfg, nil
}

// serveUI serves the dashboard of c until ctx ends.
func (a *app) serveUI(ctx context.Context, cmd *cobra.Command, c *echomq.Client, o *uiOpts, cfg dashboard.Config) error {
	if cmd.Flags().Changed("store") || cmd.Flags().Changed("s3") {
		store, release, err := o.store.open(ctx, false)
		if err != nil {
			return err
		}
		defer release()
		cfg.Archive = store
	}
	cfg.Logger = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	h, err := dashboard.New(c, &cfg)
	if err != nil {
		return err
	}
	reg := prometheus.NewRegistry()
	if err := registerMetrics(reg, c, cfg.Queues); err != nil {
		return err
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	if cfg.Prefix == "" {
		mux.Handle("/", h)
	} else {
		mux.Handle(cfg.Prefix+"/", http.StripPrefix(cfg.Prefix, h))
	}
	ln, err := (&net.ListenConfig{}).Listen(ctx, "tcp", o.addr)
	if err != nil {
		return fmt.Errorf("cannot listen on %s (give another address with --addr): %w", o.addr, err)
	}
	srv := &http.Server{
		Handler: mux, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute,
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(a.stdout, "dashboard  %s%s/  (queue %s)\nmetrics    %s/metrics\nwrites     %s\n",
		base, cfg.Prefix, a.queue, base, writesState(h, cfg))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err = <-served:
		return err // the listener failed
	case <-ctx.Done():
	}
	_ = h.Close() // ends the live update streams, which never go idle
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), uiShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return err
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// writesState says whether writes are on, and why not.
func writesState(h *dashboard.Handler, cfg dashboard.Config) string {
	switch {
	case h.Writable():
		return "on (sign in with the token)"
	case cfg.ReadOnly:
		return "off (--read-only)"
	default:
		return "off (no token: set $EMQ_UI_TOKEN or --token)"
	}
}
