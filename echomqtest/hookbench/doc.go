// Package hookbench measures what hooks cost: the same workloads through a
// client with hooks ("on") and one without ("off"), on one private engine,
// in the same run. The two sides are interleaved finely — appends
// alternate one by one (the order flipping every pair), consumers run side
// by side — so a noisy neighbour on a shared machine slows both alike and
// the ratio stays meaningful. The metrics and tracing modules run it on
// their hooks; BENCHMARKS.md records the ratios.
package hookbench
