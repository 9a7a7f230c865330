package health_test

import (
	"os"
	"regexp"
	"slices"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/echomq/echomq/codemojex/health"
)

// TestMetricsDocumented: docs/metrics.md lists every metric a Monitor
// describes, and no other codemojex_ metric.
func TestMetricsDocumented(t *testing.T) {
	t.Parallel()
	e := engine(t)
	m, err := health.New(e, nil)
	require.NoError(t, err)
	ch := make(chan *prometheus.Desc, 16)
	m.Describe(ch)
	close(ch)
	fq := regexp.MustCompile(`fqName: "([a-z_]+)"`)
	var described []string
	for d := range ch {
		described = append(described, fq.FindStringSubmatch(d.String())[1])
	}
	b, err := os.ReadFile("../../docs/metrics.md")
	require.NoError(t, err)
	var documented []string
	for _, row := range regexp.MustCompile("(?m)^\\| `(codemojex_[a-z_]+)` \\|").FindAllStringSubmatch(string(b), -1) {
		documented = append(documented, row[1])
	}
	slices.Sort(described)
	slices.Sort(documented)
	require.Equal(t, described, documented)
}
