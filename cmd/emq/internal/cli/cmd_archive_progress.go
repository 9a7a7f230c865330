package cli

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/echomq/echomq/archive"
)

// progressBar draws a long operation's [archive.Progress] on one terminal
// line, redrawn in place. It draws only on a terminal: a log file or a
// pipe (and a test) gets no bar and no control characters.
type progressBar struct {
	mu    sync.Mutex
	w     io.Writer
	drawn bool
}

// newProgressBar returns the bar for w, or nil when w is not a terminal.
func newProgressBar(w io.Writer) *progressBar {
	if !isTerminal(w) {
		return nil
	}
	return &progressBar{w: w}
}

func isTerminal(w io.Writer) bool {
	if l, ok := w.(*lockedWriter); ok {
		w = l.w
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// callback returns the archive's Config.Progress hook (nil without a bar).
func (p *progressBar) callback() func(archive.Progress) {
	if p == nil {
		return nil
	}
	return p.draw
}

const barWidth = 30

func (p *progressBar) draw(pr archive.Progress) {
	p.mu.Lock()
	defer p.mu.Unlock()
	bar := strings.Repeat("·", barWidth)
	count := strconv.FormatInt(pr.Done, 10)
	if pr.Total > 0 {
		n := min(int(pr.Done*barWidth/pr.Total), barWidth)
		bar = strings.Repeat("█", n) + strings.Repeat("·", barWidth-n)
		count = fmt.Sprintf("%d/%d", pr.Done, pr.Total)
	}
	fmt.Fprintf(p.w, "\r\033[K%s %s/%s [%s] %s entries, %d segment%s, %s",
		pr.Op, pr.Queue, pr.Stream, bar, count, pr.Segments, plural(pr.Segments), fmtBytes(pr.Bytes))
	p.drawn = true
}

// clear erases the bar before the command prints its result.
func (p *progressBar) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
	}
}

// fmtBytes renders a byte count for people: 512 B, 1.5 KiB, 3.2 MiB.
func fmtBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}
