package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// The values of -o, as kubectl's: the table (no -o), the table with more
// columns, the object as JSON or YAML, or only kind/name per line.
const (
	outputTable = ""
	outputWide  = "wide"
	outputJSON  = "json"
	outputYAML  = "yaml"
	outputName  = "name"
)

// listOutputs are the formats every list and get takes.
var listOutputs = []string{outputWide, outputJSON, outputYAML, outputName}

// outputFlag is -o with the formats one command can print; any other value
// is refused when the flag is parsed, naming the ones it takes, rather than
// quietly printing the table.
type outputFlag struct {
	value   *string
	allowed []string
}

// addOutputFlag adds -o/--output to f, taking the allowed formats.
func addOutputFlag(f *pflag.FlagSet, value *string, allowed ...string) {
	f.VarP(&outputFlag{value: value, allowed: allowed}, "output", "o", strings.Join(allowed, ", ")+" (as kubectl's -o)")
}

func (o *outputFlag) String() string { return *o.value }
func (o *outputFlag) Type() string   { return "format" }

// Set accepts one of the allowed formats.
func (o *outputFlag) Set(s string) error {
	if !slices.Contains(o.allowed, s) {
		return fmt.Errorf("want %s", orList(o.allowed))
	}
	*o.value = s
	return nil
}

// orList is "a, b or c".
func orList(s []string) string {
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// printNames prints kubectl's -o name: kind/name, one a line.
func printNames(w io.Writer, kind string, names []string) {
	for _, n := range names {
		fmt.Fprintf(w, "%s/%s\n", kind, n)
	}
}
