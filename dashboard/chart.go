package dashboard

import (
	"fmt"
	"html/template"
	"strconv"
	"strings"
)

// Chart geometry in SVG user units; the page's CSS scales it.
const (
	chartW = 150
	chartH = 32
)

// chartPoints returns the polyline points of counts scaled to the chart,
// oldest at the left; the live script computes the same from its data.
func chartPoints(counts []int64) string {
	var top int64 = 1
	for _, c := range counts {
		top = max(top, c)
	}
	var b strings.Builder
	for i, c := range counts {
		if i > 0 {
			b.WriteByte(' ')
		}
		x := float64(i) * chartW / float64(max(len(counts)-1, 1))
		y := chartH - 2 - float64(c)*(chartH-4)/float64(top)
		b.WriteString(strconv.FormatFloat(x, 'f', 1, 64))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(y, 'f', 1, 64))
	}
	return b.String()
}

// chartSVG renders a rate as a small inline line chart with a text
// alternative: the counts it draws, in words.
func chartSVG(id string, r rate) template.HTML {
	counts := r.Buckets[:]
	var words strings.Builder
	for i, c := range counts {
		if i > 0 {
			words.WriteString(", ")
		}
		words.WriteString(strconv.FormatInt(c, 10))
	}
	label := fmt.Sprintf("Events per minute over the last %d minutes, oldest first: %s", len(counts), words.String())
	return template.HTML(fmt.Sprintf( //nolint:gosec // every interpolated value is a number or escaped below
		`<svg class="chart" viewBox="0 0 %d %d" role="img" aria-label="%s" data-chart="%s"><title>%s</title>`+
			`<line class="axis" x1="0" y1="%d" x2="%d" y2="%d"></line><polyline points="%s"></polyline></svg>`,
		chartW, chartH, template.HTMLEscapeString(label), template.HTMLEscapeString(id), template.HTMLEscapeString(label),
		chartH-1, chartW, chartH-1, chartPoints(counts)))
}
