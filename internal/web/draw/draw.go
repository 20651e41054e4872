// Package draw renders the decision diagrams of the page's Graphviz
// drawing: DOT text to SVG, in the page's colours, one drawing at a time,
// with a small cache of recent drawings.
package draw

import (
	"bytes"
	"container/list"
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/goccy/go-graphviz"
)

// Drawer renders DOT text to SVG with go-graphviz, which runs Graphviz
// compiled to WebAssembly in one module instance for the whole process:
// its calls must not overlap, and a layout cannot be interrupted. So one
// drawing runs at a time (slot), a request waits for its turn only as long
// as its context allows, and a drawing the request gave up on still
// finishes and lands in the small cache of recent drawings, where the next
// identical request finds it. The caller's cap on the nodes of a drawing
// keeps each one short.
type Drawer struct {
	slot chan struct{}

	mu    sync.Mutex
	gv    *graphviz.Graphviz // created on first use, under slot
	lru   *list.List         // of *drawing, most recent first
	index map[string]*list.Element
	bytes int
}

type drawing struct {
	key string
	svg []byte
}

// maxDrawingBytes bounds the cache of drawings.
const maxDrawingBytes = 16 << 20

// New returns a drawer; Close releases it.
func New() *Drawer {
	return &Drawer{slot: make(chan struct{}, 1), lru: list.New(), index: make(map[string]*list.Element)}
}

// SVG returns the drawing of dot, named key for the cache.
func (d *Drawer) SVG(ctx context.Context, key, dot string) ([]byte, error) {
	if svg, ok := d.cached(key); ok {
		return svg, nil
	}
	select {
	case d.slot <- struct{}{}:
	case <-ctx.Done():
		return nil, fmt.Errorf("waiting to draw the diagram: %w", ctx.Err())
	}
	type answer struct {
		svg []byte
		err error
	}
	ch := make(chan answer, 1)
	go func() {
		defer func() { <-d.slot }()
		svg, err := d.render(dot)
		if err == nil {
			d.store(key, svg)
		}
		ch <- answer{svg, err}
	}()
	select {
	case a := <-ch:
		return a.svg, a.err
	case <-ctx.Done():
		return nil, fmt.Errorf("drawing the diagram: %w", ctx.Err())
	}
}

// render draws dot; the caller holds the slot.
func (d *Drawer) render(dot string) ([]byte, error) {
	// go-graphviz ignores the context inside the WebAssembly call.
	ctx := context.Background()
	if d.gv == nil {
		gv, err := graphviz.New(ctx)
		if err != nil {
			return nil, fmt.Errorf("start graphviz: %w", err)
		}
		d.gv = gv
	}
	g, err := graphviz.ParseBytes([]byte(styleDOT(dot)))
	if err != nil {
		return nil, fmt.Errorf("parse the diagram: %w", err)
	}
	defer g.Close()
	var buf bytes.Buffer
	if err := d.gv.Render(ctx, g, graphviz.SVG, &buf); err != nil {
		return nil, fmt.Errorf("draw the diagram: %w", err)
	}
	return buf.Bytes(), nil
}

func (d *Drawer) cached(key string) ([]byte, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if e, ok := d.index[key]; ok {
		d.lru.MoveToFront(e)
		return e.Value.(*drawing).svg, true
	}
	return nil, false
}

func (d *Drawer) store(key string, svg []byte) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if _, ok := d.index[key]; ok || len(svg) > maxDrawingBytes {
		return
	}
	d.index[key] = d.lru.PushFront(&drawing{key, svg})
	d.bytes += len(svg)
	for d.bytes > maxDrawingBytes {
		e := d.lru.Back()
		old := e.Value.(*drawing)
		d.lru.Remove(e)
		delete(d.index, old.key)
		d.bytes -= len(old.svg)
	}
}

// Close releases Graphviz once no drawing runs.
func (d *Drawer) Close() {
	d.slot <- struct{}{}
	defer func() { <-d.slot }()
	if d.gv != nil {
		d.gv.Close()
		d.gv = nil
	}
}

// dotStyle gives the drawings the page's colours and a sans-serif face;
// the statements go first in the graph, so the diagram's own attributes
// (shapes, dashed low edges) still apply.
const dotStyle = `
	graph [bgcolor="transparent", fontname="sans-serif", nodesep=0.25, ranksep=0.35];
	node [fontname="sans-serif", fontsize=12, color="#2f6f8f", fontcolor="#1f2937", penwidth=1.4, width=0.45, fixedsize=true];
	edge [color="#5f6b7a", arrowsize=0.6];
`

// styleDOT inserts dotStyle after the opening brace of a DOT graph and,
// as drawings of decision diagrams customarily do, leaves out the 0
// terminal and the edges into it: a missing edge leads to 0. What remains
// is exactly the paths to 1, the solutions.
func styleDOT(dot string) string {
	var b strings.Builder
	for line := range strings.Lines(dot) {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "n0 [") || strings.HasSuffix(t, "-> n0;") || strings.HasSuffix(t, "-> n0 [style=dashed];") {
			continue
		}
		b.WriteString(line)
		if strings.HasSuffix(t, "{") && !strings.Contains(t, "rank=") {
			b.WriteString(dotStyle)
		}
	}
	return b.String()
}
