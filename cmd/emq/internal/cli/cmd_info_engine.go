package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/echomq/echomq"
)

// engineDoc is the JSON result of info --engine.
type engineDoc struct {
	Engine  string `json:"engine"`
	Version string `json:"version"`
	Cluster bool   `json:"cluster"`
	// Checked is false when the user may not run INFO: the rest is unknown.
	Checked    bool   `json:"checked"`
	Policy     string `json:"policy"`
	Evicting   bool   `json:"evicting"`
	MaxMemory  int64  `json:"max_memory"` // 0: no limit
	UsedMemory int64  `json:"used_memory"`
	Headroom   *int64 `json:"headroom"` // null without a limit
	Scripts    bool   `json:"scripts"`
}

// engineInfo prints Client.Engine. It connects accepting an evicting
// engine: this is where one learns that the engine evicts, and why.
func (a *app) engineInfo(cmd *cobra.Command) error {
	a.allowEviction = true
	return a.withClient(cmd.Context(), func(c *echomq.Client) error {
		e := c.Engine()
		doc := engineDoc{
			Engine: e.Name, Version: e.Version, Cluster: e.Cluster, Checked: e.Checked, Policy: e.Policy,
			Evicting: e.Evicting(), MaxMemory: e.MaxMemory, UsedMemory: e.UsedMemory, Scripts: e.Scripts,
		}
		if h, ok := e.Headroom(); ok {
			doc.Headroom = &h
		}
		if a.json {
			return writeJSON(a.stdout, doc)
		}
		tw := table(a.stdout)
		yes := map[bool]string{true: "yes", false: "no"}
		version := doc.Version
		if version == "" {
			version = "-"
		}
		fmt.Fprintf(tw, "engine\t%s %s\n", doc.Engine, version)
		fmt.Fprintf(tw, "cluster\t%s\n", yes[doc.Cluster])
		if !doc.Checked {
			fmt.Fprintf(tw, "memory\tunknown: this user may not run INFO (grant +info)\n")
			fmt.Fprintf(tw, "scripts\t%s\n", yes[doc.Scripts])
			return tw.Flush()
		}
		policy := doc.Policy + " (keeps every key)"
		if doc.Evicting {
			policy = doc.Policy + " (EVICTS: acknowledged events may vanish; CONFIG SET maxmemory-policy noeviction)"
		}
		fmt.Fprintf(tw, "policy\t%s\n", policy)
		if doc.Headroom != nil {
			fmt.Fprintf(tw, "maxmemory\t%d bytes\n", doc.MaxMemory)
			fmt.Fprintf(tw, "used memory\t%d bytes\n", doc.UsedMemory)
			fmt.Fprintf(tw, "headroom\t%d bytes (%.1f%%)\n", *doc.Headroom, 100*float64(*doc.Headroom)/float64(doc.MaxMemory))
		} else {
			fmt.Fprintf(tw, "maxmemory\tno limit\n")
			fmt.Fprintf(tw, "used memory\t%d bytes\n", doc.UsedMemory)
		}
		fmt.Fprintf(tw, "scripts\t%s\n", yes[doc.Scripts])
		return tw.Flush()
	})
}
