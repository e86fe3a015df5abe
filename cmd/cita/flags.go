package main

import "flag"

// parseFlags parses args with fs, accepting flags before and after positional arguments
// ("cita index ./docs --groups hr" as well as "cita index --groups hr ./docs"). A lone "--" ends
// the flags: everything after it is positional, even when it starts with "-". The positional
// arguments are left in fs.Args(), in order.
func parseFlags(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		// flag.Parse stops at the first non-flag, and consumes a "--" it meets there.
		consumedTerminator := len(args) > len(rest) && args[len(args)-len(rest)-1] == "--"
		if consumedTerminator {
			positional = append(positional, rest...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	// Reparse an empty list so fs.Args() reports the collected positional arguments.
	return fs.Parse(append([]string{"--"}, positional...))
}
