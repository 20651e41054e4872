package main

import (
	"bytes"
	"context"
	"io"

	"github.com/nqueens/configurator/configurator/feature"
	"github.com/nqueens/configurator/configurator/feature/modelfile"
)

// runConvert writes a feature model in another format on stdout: nqueens
// convert -model FILE -to uvl|dimacs|featureide. The whole file is made
// before any of it is written, so that a model the format cannot hold
// writes nothing.
func runConvert(_ context.Context, args []string, stdout, _ io.Writer) error {
	fs := newFlags("convert", "write a -model in another format on stdout: uvl, dimacs (with c <index> <name> lines) or featureide", stdout)
	var mf modelFlags
	mf.register(fs, false)
	to := fs.String("to", "", "the `format` to write: uvl, dimacs or featureide")
	if err := parse(fs, args); err != nil {
		return err
	}
	if mf.file == "" {
		return usagef("-model is required (see nqueens convert -h)")
	}
	f, err := modelfile.ParseFormat(*to)
	if err != nil || f == "" || f == feature.SXFM {
		return usagef("-to %q: want uvl, dimacs or featureide", *to)
	}
	m, err := mf.load()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := modelfile.Write(&out, m, f); err != nil {
		return err
	}
	_, err = stdout.Write(out.Bytes())
	return err
}
