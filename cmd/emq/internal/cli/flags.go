package cli

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// plainBool is a bool flag's value that the help shows as "--json" rather
// than pflag's "--json[=true|false]"; "--json=false" still parses, since
// parsing goes by the flag's NoOptDefVal, not by IsBoolFlag.
type plainBool struct{ pflag.Value }

// IsBoolFlag is false so that the usage line names no values.
func (plainBool) IsBoolFlag() bool { return false }

// plainBools makes every bool flag of cmd and its subcommands plain in
// the help, the help flags included.
func plainBools(cmd *cobra.Command) {
	cmd.InitDefaultHelpFlag()
	wrap := func(f *pflag.Flag) {
		if _, done := f.Value.(plainBool); !done && f.Value.Type() == "bool" {
			f.Value = plainBool{f.Value}
		}
	}
	cmd.Flags().VisitAll(wrap)
	cmd.PersistentFlags().VisitAll(wrap)
	for _, c := range cmd.Commands() {
		plainBools(c)
	}
}
